package pricing

import "strings"

// Resolution says how a name sent by a client found its entry.
type Resolution struct {
	// Via is "exact" (the catalogue name), "normalized" (provider prefix,
	// case, version suffix removed), "alias" (a -latest or family alias),
	// "retired" (a retired name now served by its successor) or "undated"
	// (an undated name of a dated model: its newest release).
	Via string
	// Alias is the alias or retired name matched; empty otherwise.
	Alias string
	// Retired is the retirement date of a retired name.
	Retired string
}

// Lookup finds the entry for a model name as a client sent it; see Resolve.
func (c *Catalogue) Lookup(model string) (Entry, bool) {
	e, _, ok := c.Resolve(model)
	return e, ok
}

// Resolve finds the entry for a model name as a client sent it. It tries
// the exact name (case-insensitive), then the normalised name with its
// date, then the aliases (the exact and the normalised name), then the
// normalised name without the date, and last the undated name of a dated
// model, so a dated entry that is its own catalogue key (gpt-4o-2024-05-13)
// wins over its family name and a catalogue name always wins over an alias.
func (c *Catalogue) Resolve(model string) (Entry, Resolution, bool) {
	key := strings.ToLower(strings.TrimSpace(model))
	if key == "" {
		return Entry{}, Resolution{}, false
	}
	if i, ok := c.index[key]; ok {
		return cloneEntry(c.entries[i]), Resolution{Via: "exact"}, true
	}
	norm := normalizeKeepDate(key)
	if i, ok := c.index[norm]; ok {
		return cloneEntry(c.entries[i]), Resolution{Via: "normalized"}, true
	}
	for _, name := range []string{key, norm, stripDate(norm)} {
		if i, ok := c.aliases[name]; ok {
			return cloneEntry(c.entries[i]), c.aliasResolution(i, name), true
		}
	}
	if i, ok := c.index[stripDate(norm)]; ok {
		return cloneEntry(c.entries[i]), Resolution{Via: "normalized"}, true
	}
	if i, ok := c.undated[norm]; ok {
		return cloneEntry(c.entries[i]), Resolution{Via: "undated", Alias: norm}, true
	}
	return Entry{}, Resolution{}, false
}

func (c *Catalogue) aliasResolution(i int, name string) Resolution {
	for _, a := range c.entries[i].Aliases {
		if strings.EqualFold(a.Name, name) && a.Retired != "" {
			return Resolution{Via: "retired", Alias: a.Name, Retired: a.Retired}
		}
	}
	return Resolution{Via: "alias", Alias: name}
}

// indexNames fills the alias and undated-name indexes. A catalogue name is
// never shadowed: an alias equal to an entry's name is ignored, and of two
// dated releases the newest (the greatest name) answers the undated name.
func (c *Catalogue) indexNames() {
	for i, e := range c.entries {
		for _, a := range e.Aliases {
			name := strings.ToLower(strings.TrimSpace(a.Name))
			if _, taken := c.index[name]; name == "" || taken {
				continue
			}
			c.aliases[name] = i
		}
		if u := stripDate(e.Model); u != e.Model {
			if _, taken := c.index[u]; !taken {
				if j, seen := c.undated[u]; !seen || c.entries[j].Model < e.Model {
					c.undated[u] = i
				}
			}
		}
	}
}
