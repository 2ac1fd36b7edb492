//go:build !unix

package dbhealth

// lockHolder cannot ask who holds a lock here (Windows locks have no owner query): -2.
func lockHolder(string) int { return -2 }
