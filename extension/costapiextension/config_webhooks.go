package costapiextension

import (
	"fmt"

	"github.com/llmcost/llmcost/internal/webhook"
)

// WebhooksConfig configures webhook deliveries.
type WebhooksConfig struct {
	// AllowPrivate lets deliveries reach loopback, private and link-local
	// addresses (LLMCOST_WEBHOOK_ALLOW_PRIVATE): self-hosting and tests.
	AllowPrivate bool `mapstructure:"allow_private"`
	// CAFile is a PEM file of extra CAs to trust (LLMCOST_WEBHOOK_CA_FILE).
	CAFile string `mapstructure:"ca_file"`
	// Attempts is how many times a delivery is tried before it is given up.
	Attempts int `mapstructure:"attempts"`
}

func (w WebhooksConfig) validate() []error {
	if w.Attempts < 1 {
		return []error{fmt.Errorf("webhooks.attempts: must be ≥ 1, got %d", w.Attempts)}
	}
	return nil
}

func (w WebhooksConfig) client() (*webhook.Client, error) {
	return webhook.NewClient(webhook.Options{AllowPrivate: w.AllowPrivate, CAFile: w.CAFile})
}
