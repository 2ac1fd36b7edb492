package session

// Test hooks for the external test package.

// StringTokens returns every string token (keys and values) of a JSON value, in order.
func StringTokens(b []byte) [][]byte {
	var out [][]byte
	var walk func(s span)
	walk = func(s span) {
		switch b[s.start] {
		case '"':
			out = append(out, b[s.start:s.end])
		case '{':
			eachMember(b, s.start, func(m member) bool {
				out = append(out, b[m.key.start:m.key.end])
				walk(m.val)
				return true
			})
		case '[':
			eachElement(b, s.start, func(_ int, v span) bool {
				walk(v)
				return true
			})
		}
	}
	i := skipWS(b, 0)
	if end, err := skipValue(b, i); err == nil {
		walk(span{i, end})
	}
	return out
}
