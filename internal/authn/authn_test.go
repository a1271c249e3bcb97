package authn

import (
	"regexp"
	"strings"
	"testing"
)

func TestPasswordHashIsPHCArgon2id(t *testing.T) {
	h1, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPassword("correct horse battery")
	if !regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(h1) {
		t.Fatalf("not a PHC argon2id string: %s", h1)
	}
	if h1 == h2 {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	if ok, rehash, err := VerifyPassword(h1, "correct horse battery"); !ok || rehash || err != nil {
		t.Fatalf("verify: %v %v %v", ok, rehash, err)
	}
	if ok, _, _ := VerifyPassword(h1, "correct horse batterY"); ok {
		t.Fatal("a wrong password verified")
	}
}

func TestLongUnicodePasswordIsNotTruncated(t *testing.T) {
	pw := strings.Repeat("é", 64) // 128 bytes
	h, _ := HashPassword(pw)
	if ok, _, _ := VerifyPassword(h, pw); !ok {
		t.Fatal("the password does not verify")
	}
	if ok, _, _ := VerifyPassword(h, pw[:len(pw)-2]); ok {
		t.Fatal("a truncated password verified")
	}
}

func TestWeakerHashVerifiesAndAsksForRehash(t *testing.T) {
	weak := Params{MemoryKiB: 7168, Time: 1, Threads: 1}
	salt := []byte("0123456789abcdef")
	h := encode(weak, salt, derive(weak, []byte("pw-12345678"), salt))
	ok, rehash, err := VerifyPassword(h, "pw-12345678")
	if !ok || !rehash || err != nil {
		t.Fatalf("ok %v rehash %v err %v", ok, rehash, err)
	}
	if _, _, err := VerifyPassword("$2a$10$bcrypt", "x"); err == nil {
		t.Fatal("a non-argon2id hash was accepted")
	}
}

func TestAPIKeysAreUniqueChecksummedAndShaped(t *testing.T) {
	shape := regexp.MustCompile(`^sk_llmc_[A-Za-z0-9]{36}$`)
	seen := map[string]bool{}
	for range 10000 {
		k := NewAPIKey()
		if !shape.MatchString(k) || !ValidAPIKey(k) {
			t.Fatalf("bad key %q", k)
		}
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
	}
	k := NewAPIKey()
	flipped := []byte(k)
	if flipped[12] == 'A' {
		flipped[12] = 'B'
	} else {
		flipped[12] = 'A'
	}
	if ValidAPIKey(string(flipped)) || ValidAPIKey(k[:len(k)-1]) || ValidAPIKey("sk_live_"+k[8:]) {
		t.Fatal("a corrupted key passed the checksum")
	}
	if KeyPrefix(k) != k[:12] || len(Hash(k)) != 32 {
		t.Fatalf("prefix %q", KeyPrefix(k))
	}
}
