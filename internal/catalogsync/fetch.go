package catalogsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/pricing"
)

// SyncOnce fetches every configured price source (LiteLLM's file, then
// genai-prices'), reconciles them and applies the result like an import.
// A source that fails is left out and named in the status; whatever fails
// (network, timeout, status, size, content, sanity bounds, storage), the
// catalogue in force stays and the status records why.
func (s *Syncer) SyncOnce(ctx context.Context) error {
	urls := s.sourceURLs()
	if len(urls) == 0 {
		return errors.New("no sync URL is configured")
	}
	s.mu.Lock()
	s.status.LastAttemptAt = s.opts.Now().UTC()
	s.mu.Unlock()
	var sources []pricing.SourceEntries
	var skipped []pricing.Skip
	var failed []string
	for _, u := range urls {
		src, sk, err := s.fetchSource(ctx, u)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %s", redact(u), describe(err)))
			continue
		}
		sources, skipped = append(sources, src), append(skipped, sk...)
	}
	var err error
	if len(sources) > 0 {
		_, err = s.apply(ctx, sources, skipped, ModeNetwork, sourceName(sources))
	}
	if err == nil && len(failed) > 0 {
		err = errors.New(strings.Join(failed, "; "))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.status.LastError = describe(err)
		s.opts.Logger.Warn("price catalogue sync failed; keeping the catalogue in force",
			zap.String("url", s.status.SourceURL), zap.String("error", s.status.LastError))
		return err
	}
	s.status.LastError = ""
	s.status.LastSuccessAt = s.opts.Now().UTC()
	return nil
}

// fetchSource downloads and parses one source.
func (s *Syncer) fetchSource(ctx context.Context, url string) (pricing.SourceEntries, []pricing.Skip, error) {
	data, err := s.fetch(ctx, url)
	if err != nil {
		return pricing.SourceEntries{}, nil, err
	}
	return parseFile(data)
}

// sourceURLs are the configured sources, the primary (LiteLLM) first.
func (s *Syncer) sourceURLs() []string {
	var out []string
	for _, u := range []string{s.opts.URL, s.opts.GenAIURL} {
		if u != "" {
			out = append(out, u)
		}
	}
	return out
}

// sourceName names a synced catalogue by its sources: "litellm",
// "genai-prices", or both joined by "+".
func sourceName(sources []pricing.SourceEntries) string {
	names := make([]string, len(sources))
	for i, src := range sources {
		names[i] = src.Name
	}
	if len(names) == 1 && names[0] == pricing.FormatLiteLLM {
		return SourceNetwork
	}
	return strings.Join(names, "+")
}

// fetch downloads a file with the configured timeout and size cap.
func (s *Syncer) fetch(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("sync URL: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if s.opts.UserAgent != "" {
		req.Header.Set("User-Agent", s.opts.UserAgent)
	}
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		return nil, s.transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the source answered HTTP %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.opts.MaxBytes+1))
	if err != nil {
		return nil, s.transportError(ctx, err)
	}
	if int64(len(data)) > s.opts.MaxBytes {
		return nil, fmt.Errorf("the price file exceeds the %d-byte limit", s.opts.MaxBytes)
	}
	return data, nil
}

func (s *Syncer) transportError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no complete answer within the %s sync timeout", s.opts.Timeout)
	}
	return fmt.Errorf("fetching the price file: %w", err)
}

// describe turns an error into the sync status's last_error text.
func describe(err error) string {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
