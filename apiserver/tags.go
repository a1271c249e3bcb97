package apiserver

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
)

// tagKeyRule is the syntax of a declared tag key (docs/tags.md): short,
// lower case, so that tag.<key> is a plain query parameter and dimension.
var tagKeyRule = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// maxTagValueLen bounds a tag value in characters, as the rollups count
// it (llmcost_tag_value, migration 0034).
const maxTagValueLen = 64

// getTags is GET /v1/projects/{project_id}/tags.
func (s *Server) getTags(r *http.Request) (wire.TagList, error) {
	return s.tagList(r.Context(), callerOf(r).ProjectID)
}

// putTags is PUT /v1/projects/{project_id}/tags: the keys replace the
// declared ones; a key left out loses its rollups, a new one is counted
// from now on and back-filled over the stored calls in the background.
func (s *Server) putTags(w http.ResponseWriter, r *http.Request) error {
	var req wire.TagsRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := checkTagKeys(req.Keys); err != nil {
		return err
	}
	project := callerOf(r).ProjectID
	if err := s.DB.PutTags(r.Context(), project, req.Keys); err != nil {
		return err
	}
	list, err := s.tagList(r.Context(), project)
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, list)
}

// checkTagKeys applies the declaration's rules: a list (possibly empty)
// of at most MaxTagKeys distinct keys of tagKeyRule.
func checkTagKeys(keys []string) error {
	if keys == nil {
		return apierr.Field("keys", "is required (an empty list removes every key)")
	}
	if len(keys) > postgres.MaxTagKeys {
		return apierr.Newf(apierr.ValidationFailed, "keys: at most %d tag keys per project, got %d",
			postgres.MaxTagKeys, len(keys))
	}
	for i, k := range keys {
		if !tagKeyRule.MatchString(k) {
			return apierr.Newf(apierr.ValidationFailed, "keys[%d]: must match %s", i, tagKeyRule)
		}
		if slices.Index(keys, k) < i {
			return apierr.Newf(apierr.ValidationFailed, "keys[%d]: %q is declared twice", i, k)
		}
	}
	return nil
}

// tagList reads the project's declared keys as the API lists them.
func (s *Server) tagList(ctx context.Context, project string) (wire.TagList, error) {
	keys, err := s.DB.Tags(ctx, project)
	if err != nil {
		return wire.TagList{}, err
	}
	out := wire.TagList{Keys: make([]wire.TagKey, len(keys)), MaxKeys: postgres.MaxTagKeys,
		MaxValues: postgres.MaxTagValues, MaxValueLength: maxTagValueLen}
	for i, k := range keys {
		out.Keys[i] = wire.TagKey{Key: k.Key, Dimension: postgres.TagDimPrefix + k.Key,
			DeclaredAt: k.DeclaredAt.Format(time.RFC3339), Backfilling: k.Backfilling, Values: k.Values,
			OverflowCalls: k.OverflowCalls}
	}
	return out, nil
}

// tagFilter is a report's tag filter, tag.<key>=<value>.
type tagFilter struct{ key, value string }

// parseTagFilter reads the tag filter of a report's query: at most one
// tag.<key> parameter, of a declared key, with one value that follows the
// value rule or is one of the reserved values.
func (s *Server) parseTagFilter(ctx context.Context, project string, q url.Values) (tagFilter, error) {
	var f tagFilter
	for name, vals := range q {
		key, ok := strings.CutPrefix(name, postgres.TagDimPrefix)
		if !ok {
			continue
		}
		if f.key != "" {
			return f, apierr.Field(name, "one tag filter per report")
		}
		if len(vals) != 1 {
			return f, apierr.Field(name, "one value per tag filter")
		}
		if err := checkTagValue(name, vals[0]); err != nil {
			return f, err
		}
		f = tagFilter{key: key, value: vals[0]}
	}
	if f.key == "" {
		return f, nil
	}
	if err := s.declaredTag(ctx, project, f.key, postgres.TagDimPrefix+f.key); err != nil {
		return f, err
	}
	return f, nil
}

// withoutAgent refuses f beside an agent_name in q: the tag rollups keep
// no breakdown per agent, so no report takes both.
func (f tagFilter) withoutAgent(q url.Values) error {
	if f.key != "" && q.Get("agent_name") != "" {
		return apierr.Field(postgres.TagDimPrefix+f.key, "a tag filter does not combine with agent_name")
	}
	return nil
}

// checkTagValue applies the value rule to a filter's value.
func checkTagValue(field, v string) error {
	switch {
	case v == postgres.TagNone || v == postgres.TagOther || v == postgres.TagInvalid:
		return nil
	case v == "" || utf8.RuneCountInString(v) > maxTagValueLen:
		return apierr.Newf(apierr.ValidationFailed, "%s: a tag value has 1 to %d characters", field, maxTagValueLen)
	case strings.HasPrefix(v, "("):
		return apierr.Field(field, "a tag value starting with ( is one of (none), (other), (invalid)")
	case strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return apierr.Field(field, "a tag value has no control characters")
	}
	return nil
}

// declaredTag is nil when key is one of the project's declared tag keys,
// a 422 naming field otherwise.
func (s *Server) declaredTag(ctx context.Context, project, key, field string) error {
	keys, err := s.DB.Tags(ctx, project)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(keys, func(k postgres.TagKey) bool { return k.Key == key }) {
		return apierr.Newf(apierr.ValidationFailed, "%s: %q is not a declared tag key of this project", field, key).
			WithHint("declare it with PUT /v1/projects/{project_id}/tags")
	}
	return nil
}
