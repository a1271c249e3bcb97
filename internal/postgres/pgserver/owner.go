package pgserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// owner is the account initdb and postgres run as.
type owner struct {
	name     string
	uid, gid uint32
	drop     bool // we are root and switch to uid/gid for the children
}

// resolveOwner picks the account: ourselves unless we are root, in which case
// the named account, else "postgres" (the packaged server's account, which
// exists wherever the server package is installed), else "nobody".
func resolveOwner(name string) (owner, error) {
	if os.Geteuid() != 0 {
		return owner{name: strconv.Itoa(os.Geteuid()), uid: uint32(os.Geteuid()), gid: uint32(os.Getegid())}, nil
	}
	candidates := []string{"postgres", "nobody"}
	if name != "" {
		candidates = []string{name}
	}
	for _, c := range candidates {
		u, err := user.Lookup(c)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return owner{name: c, uid: uint32(uid), gid: uint32(gid), drop: true}, nil
	}
	return owner{}, fmt.Errorf("pgserver: running as root, but no unprivileged account %q exists to run postgres as (initdb refuses root)", candidates)
}

// cred returns the credential for child processes, nil when not switching.
// Supplementary groups are cleared, so only the primary gid counts below.
func (o owner) cred() *syscall.Credential {
	if !o.drop {
		return nil
	}
	return &syscall.Credential{Uid: o.uid, Gid: o.gid}
}

// checkTraversable verifies that the owner can search dir and each of its
// parents; otherwise postgres would fail later with a vaguer message.
func (o owner) checkTraversable(dir string) error {
	if !o.drop {
		return nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("pgserver: %w", err)
		}
		if !o.can(fi, 0o1) {
			return fmt.Errorf("pgserver: directory %s is not searchable by user %q, which postgres runs as "+
				"because initdb refuses root; make it traversable (chmod o+x %s) or use a data directory elsewhere", d, o.name, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// can reports whether the owner has the permission bit (1=x, 2=w, 4=r) on fi.
func (o owner) can(fi fs.FileInfo, bit fs.FileMode) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	perm := fi.Mode().Perm()
	switch {
	case st.Uid == o.uid:
		return perm&(bit<<6) != 0
	case st.Gid == o.gid:
		return perm&(bit<<3) != 0
	default:
		return perm&bit != 0
	}
}

// ensurePrivateDir creates dir (mode 0700, owned by the owner) or checks an
// existing one. A directory owned by anybody else is refused, because the
// socket fallback lives in the world-writable /tmp, where another user could
// have planted it.
func (o owner) ensurePrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pgserver: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || st == nil || (st.Uid != o.uid && !(o.drop && st.Uid == 0)) {
		return fmt.Errorf("pgserver: %s is not a directory owned by %q; remove it", dir, o.name)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	if o.drop && (st.Uid != o.uid || st.Gid != o.gid) {
		if err := os.Chown(dir, int(o.uid), int(o.gid)); err != nil {
			return fmt.Errorf("pgserver: %w", err)
		}
	}
	return nil
}

// chownTree gives a directory tree to the owner, e.g. a cluster created by an
// earlier run under a different account; postgres insists on owning pgdata.
func (o owner) chownTree(root string) error {
	if !o.drop {
		return nil
	}
	fi, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == o.uid && st.Gid == o.gid {
		return nil
	}
	err = filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(o.uid), int(o.gid))
	})
	if err != nil {
		return fmt.Errorf("pgserver: giving %s to %q: %w", root, o.name, err)
	}
	return nil
}
