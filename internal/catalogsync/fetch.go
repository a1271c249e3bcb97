package catalogsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/apierr"
)

// SyncOnce fetches the price file from the configured URL and applies it
// like an import. Whatever fails (network, timeout, status, size, content,
// sanity bounds, storage), the catalogue in force stays and the status
// records why.
func (s *Syncer) SyncOnce(ctx context.Context) error {
	if s.opts.URL == "" {
		return errors.New("no sync URL is configured")
	}
	s.mu.Lock()
	s.status.LastAttemptAt = s.opts.Now().UTC()
	s.mu.Unlock()
	data, err := s.fetch(ctx)
	if err == nil {
		_, err = s.apply(ctx, data, ModeNetwork, SourceNetwork)
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

// fetch downloads the file with the configured timeout and size cap.
func (s *Syncer) fetch(ctx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.opts.URL, nil)
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
