package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/imgupd/imgupd/internal/kubeclient"
	"github.com/imgupd/imgupd/internal/leaderelection"
	"github.com/imgupd/imgupd/internal/leaderelection/resourcelock"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LeaderConfig is the Lease that decides which replica talks to Slack.
// Socket Mode hands each payload to any one open connection, so two
// connected replicas would each see about half the commands, with their
// own de-duplication and rate limits; standbys therefore keep no socket.
type LeaderConfig struct {
	Client    kubeclient.LeasesGetter
	Namespace string
	Name      string
	// Identity names this replica in the Lease (the pod name, made unique).
	Identity string
	// LeaseDuration, RenewDeadline, RetryPeriod default to client-go's
	// usual 15 s, 10 s and 2 s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	Log                                       *slog.Logger
}

// ErrLostLease is returned when another replica took the Lease while this
// one led: the process should exit and come back as a standby.
var ErrLostLease = errors.New("lost the leader Lease: another replica answers Slack now")

// RunAsLeader runs the bot only while this replica holds the Lease. On
// shutdown (ctx done) or when the Lease is lost, the bot stops taking
// commands and finishes those in flight before the Lease is released, so
// two replicas never answer at once for longer than the Lease's renewal
// allows. It returns nil after a shutdown, ErrLostLease when the Lease was
// lost, or the bot's own error.
func (b *Bot) RunAsLeader(ctx context.Context, c LeaderConfig) error {
	if c.LeaseDuration <= 0 {
		c.LeaseDuration, c.RenewDeadline, c.RetryPeriod = 15*time.Second, 10*time.Second, 2*time.Second
	}
	if c.Log == nil {
		c.Log = b.cfg.Log
	}
	// client-go's elector only logs its errors and retries forever: check
	// the Lease can be read at all, so a missing Role is a clear start-up
	// error instead of a standby that waits for ever.
	_, err := c.Client.Leases(c.Namespace).Get(ctx, c.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// client-go creates it, which needs create on leases: the chart and deploy/rbac.yaml
		// create the Lease instead and grant no create.
		c.Log.Warn("the leader Lease does not exist: imgupd creates it (create on leases is needed; the Helm chart and deploy/rbac.yaml create it instead)", "lease", c.Namespace+"/"+c.Name)
	}
	if err != nil && !apierrors.IsNotFound(err) {
		if apierrors.IsForbidden(err) {
			return &SetupError{What: "leader election", Msg: fmt.Sprintf("imgupd may not read its Lease %s/%s: grant get and update on leases (coordination.k8s.io) named %s in %s, as deploy/rbac.yaml does (it creates the Lease too)",
				c.Namespace, c.Name, c.Name, c.Namespace), Err: err}
		}
		return &SetupError{What: "leader election", Msg: fmt.Sprintf("cannot read the Lease %s/%s", c.Namespace, c.Name), Err: err}
	}
	// The schedules' state too: a standby without its Role fails now, not when it leads.
	if len(b.cfg.Schedules) > 0 {
		if _, err := b.cfg.State.Load(ctx); err != nil {
			return err
		}
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name},
		Client:     c.Client,
		LockConfig: resourcelock.ResourceLockConfig{Identity: c.Identity},
	}
	electCtx, stopElect := context.WithCancel(context.WithoutCancel(ctx))
	defer stopElect()
	var (
		leading atomic.Bool
		runErr  error
		ran     = make(chan struct{})
	)
	b.health.setStandby("")
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, LeaseDuration: c.LeaseDuration, RenewDeadline: c.RenewDeadline, RetryPeriod: c.RetryPeriod,
		ReleaseOnCancel: true, Name: c.Namespace + "/" + c.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) {
				// However this ends, the Lease is released once the bot is done.
				defer stopElect()
				defer close(ran)
				if ctx.Err() != nil {
					return
				}
				leading.Store(true)
				b.health.setLeading()
				b.cfg.Metrics.leader.Set(1)
				c.Log.Info("holding the leader Lease: connecting to Slack", "lease", c.Namespace+"/"+c.Name, "identity", c.Identity)
				// The bot stops on shutdown or when the Lease is lost.
				rctx, cancel := context.WithCancel(ctx)
				defer cancel()
				defer context.AfterFunc(lctx, cancel)()
				runErr = b.Run(rctx)
				b.cfg.Metrics.leader.Set(0)
			},
			OnStoppedLeading: func() {
				if leading.Load() {
					c.Log.Info("released the leader Lease", "identity", c.Identity)
				}
			},
			OnNewLeader: func(id string) {
				if id != c.Identity {
					b.health.setStandby(id)
					c.Log.Info("standby: another replica answers Slack", "leader", id)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	done := make(chan struct{})
	go func() { le.Run(electCtx); close(done) }()
	select {
	case <-ctx.Done():
	case <-done:
	case <-ran:
	}
	if leading.Load() {
		<-ran
	}
	stopElect()
	<-done
	switch {
	case runErr != nil:
		return runErr
	case ctx.Err() != nil:
		return nil
	case leading.Load():
		return ErrLostLease
	}
	return errors.New("leader election ended without leading")
}
