package audit

import (
	"hash/maphash"
	"testing"
)

// TestIdKeyPacks: exactly the ids of 8 lowercase hex digits are packed (and unpack to
// themselves); any other id is hashed, with the top bit clear.
func TestIdKeyPacks(t *testing.T) {
	seed := maphash.MakeSeed()
	for _, tc := range []struct {
		id     string
		packed bool
	}{
		{"0123abcd", true}, {"ffffffff", true}, {"00000000", true},
		{"0123ABCD", false}, {"0123abc/", false}, {"0123abc:", false}, {"0123abc`", false},
		{"0123abcg", false}, {"g123abcd", false}, {"0123abc\x00", false}, {"0123abc\xff", false},
		{"0123abc", false}, {"0123abcde", false},
	} {
		k := idKey(seed, []byte(tc.id))
		got, ok := packed(k)
		if ok != tc.packed || (ok && got != tc.id) || k == 0 {
			t.Errorf("idKey(%q) = %#x: packed %v %q, want packed %v", tc.id, k, ok, got, tc.packed)
		}
	}
}

func BenchmarkIdKey(b *testing.B) {
	seed := maphash.MakeSeed()
	ids := [][]byte{[]byte("1a88a9ed"), []byte("0eca9c7c"), []byte("d13543e9"), []byte("bd58ba6a")}
	var sum uint64
	for i := 0; b.Loop(); i++ {
		sum += idKey(seed, ids[i&3])
	}
	if sum == 1 {
		b.Log(sum)
	}
}
