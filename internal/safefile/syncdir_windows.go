package safefile

// SyncDir does nothing on Windows: a directory cannot be opened for FlushFileBuffers (it needs
// write access a directory handle does not have), and there is nothing to flush: NTFS journals
// its metadata, and Replace's MoveFileEx with MOVEFILE_WRITE_THROUGH returns only once the
// rename is on disk.
func SyncDir(string) error { return nil }
