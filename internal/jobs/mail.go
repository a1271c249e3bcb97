package jobs

import (
	"context"
	"errors"
	"net/textproto"

	"github.com/riverqueue/river"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/mail"
)

// MailArgs is a mail job: one account mail, body and token included (see
// CompletedRetention for how long its row keeps them).
type MailArgs struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
	// What names the mail in logs: verify_email, reset_password, invitation.
	What string `json:"what"`
}

// Kind implements river.JobArgs.
func (MailArgs) Kind() string { return "mail" }

func (a MailArgs) message() mail.Message {
	return mail.Message{To: a.To, Subject: a.Subject, Body: a.Body, Kind: a.What}
}

// SendMail queues m for delivery by any instance, retried with backoff
// until it is sent or MailAttempts are used up. Without a mailer it only
// logs kind and recipient, so no token is ever stored for nothing.
func (r *Runner) SendMail(ctx context.Context, m mail.Message) error {
	if r.mailer == nil {
		return mail.Log{Logger: r.log}.Send(ctx, m)
	}
	args := MailArgs{To: m.To, Subject: m.Subject, Body: m.Body, What: m.Kind}
	_, err := r.client.Insert(ctx, args, &river.InsertOpts{MaxAttempts: r.attempts})
	return err
}

// mailWorker delivers mail jobs.
type mailWorker struct {
	river.WorkerDefaults[MailArgs]
	sender mail.Sender
	log    *zap.Logger
}

// Work sends the mail once. A refusal that no retry can change (an SMTP
// 5xx reply, an address that does not parse) ends the job at once.
func (w *mailWorker) Work(ctx context.Context, job *river.Job[MailArgs]) error {
	if w.sender == nil { // queued by an instance that has SMTP; this one has none
		return errors.New("this instance has no SMTP server configured")
	}
	err := w.sender.Send(ctx, job.Args.message())
	fields := []zap.Field{zap.String("kind", job.Args.What), zap.String("to", job.Args.To),
		zap.Int("attempt", job.Attempt), zap.Int("max_attempts", job.MaxAttempts)}
	switch {
	case err == nil:
		if job.Attempt > 1 {
			w.log.Info("e-mail sent after a retry", fields...)
		}
		return nil
	case permanent(err):
		w.log.Error("e-mail refused; not retried", append(fields, zap.Error(err))...)
		return river.JobCancel(err)
	case job.Attempt >= job.MaxAttempts:
		w.log.Error("e-mail could not be sent; giving up", append(fields, zap.Error(err))...)
	default:
		w.log.Warn("e-mail could not be sent; will retry", append(fields, zap.Error(err))...)
	}
	return err
}

// permanent reports an SMTP 5xx reply or an unusable address.
func permanent(err error) bool {
	var reply *textproto.Error
	if errors.As(err, &reply) {
		return reply.Code >= 500
	}
	return errors.Is(err, mail.ErrAddress)
}
