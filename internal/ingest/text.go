package ingest

import "fmt"

// MaxDepth is how deeply JSON may nest inside one event's metadata (the
// metadata object itself is level 1). PostgreSQL's jsonb takes deeper
// values, but nothing llmcost reads is that deep and a deep value costs
// every later reader; see docs/api.md "Validation per event".
const MaxDepth = 32

// CheckJSONText reports the first thing in raw, a valid JSON value, that
// PostgreSQL would refuse or that decoding would silently change: a \u0000
// escape (text and jsonb refuse NUL), an unpaired UTF-16 surrogate escape
// such as "\ud800" (jsonb refuses it; encoding/json would turn it into
// U+FFFD, so two different event ids could collide), and nesting deeper
// than maxDepth (0: no depth limit). It returns "" when raw is fine.
func CheckJSONText(raw []byte, maxDepth int) string {
	depth, inString := 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '"':
				inString = false
			case '\\':
				if i+1 < len(raw) && raw[i+1] == 'u' {
					reason, skip := checkEscape(raw, i)
					if reason != "" {
						return reason
					}
					i += skip - 1
					continue
				}
				i++ // the escaped character
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if maxDepth > 0 && depth > maxDepth {
				return fmt.Sprintf("nests deeper than %d levels", maxDepth)
			}
		case '}', ']':
			depth--
		}
	}
	return ""
}

// checkEscape checks the \uXXXX escape at raw[i] and returns how many bytes
// it spans (12 for a surrogate pair).
func checkEscape(raw []byte, i int) (reason string, skip int) {
	r, ok := hex4(raw, i+2)
	switch {
	case !ok:
		return "", 2 // not valid JSON; the decoder has refused it already
	case r == 0:
		return `must not contain NUL characters (\u0000)`, 6
	case r >= 0xDC00 && r <= 0xDFFF:
		return fmt.Sprintf(`contains an unpaired UTF-16 surrogate escape (\u%04x)`, r), 6
	case r >= 0xD800 && r <= 0xDBFF:
		if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
			if lo, ok := hex4(raw, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return "", 12
			}
		}
		return fmt.Sprintf(`contains an unpaired UTF-16 surrogate escape (\u%04x)`, r), 6
	}
	return "", 6
}

// hex4 reads four hex digits at raw[at:].
func hex4(raw []byte, at int) (rune, bool) {
	if at+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
