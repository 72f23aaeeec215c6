package watchtest

import (
	"os"
	"syscall"
	"testing"
)

// TestCountInotify: a watch this process adds is counted, and no longer
// once its instance is closed.
func TestCountInotify(t *testing.T) {
	before, _ := Count("", os.Getpid())
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	if _, err := syscall.InotifyAddWatch(fd, t.TempDir(), syscall.IN_MODIFY); err != nil {
		t.Fatal(err)
	}
	if got, _ := Count("", os.Getpid()); got != before+1 {
		t.Errorf("Count with a watch added = %d; want %d", got, before+1)
	}
	syscall.Close(fd)
	if got, _ := Count("", os.Getpid()); got != before {
		t.Errorf("Count with the watch's instance closed = %d; want %d", got, before)
	}
}
