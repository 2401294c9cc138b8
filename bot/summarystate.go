package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/internal/kubeclient"
)

// ScheduleState is what a schedule remembers between runs, across restarts and leader changes:
// where its message is, the hash of the states it shows, the day of its last new message, and
// every app's state and since when (fleet.Memory).
type ScheduleState struct {
	// ChannelSpec is the channel as configured when the message was posted (a new channel in
	// the configuration means a new message); Channel is its ID, as Slack answered.
	ChannelSpec string `json:"channelSpec"`
	Channel     string `json:"channel"`
	// MessageTS is the summary message; Thread are its replies (the summary's pages), in
	// order, each with the hash of what it shows so that an unchanged page is not written.
	MessageTS string `json:"messageTs,omitempty"`
	Thread    []Page `json:"thread,omitempty"`
	// Hash is the summary's report.Summary.Hash when it was last written.
	Hash string `json:"hash,omitempty"`
	// DigestDay is the day (YYYY-MM-DD in the schedule's time zone) of the last new message.
	DigestDay string `json:"digestDay,omitempty"`
	// LastRun is the last run's time (a run missed while no replica led is made at start).
	LastRun time.Time    `json:"lastRun"`
	Memory  fleet.Memory `json:"memory"`
}

// Page is one thread reply of a summary.
type Page struct {
	TS   string `json:"ts"`
	Hash string `json:"hash"`
}

// StateStore keeps the schedules' states. Load is called when the bot starts leading (and its
// error stops the start: a store that cannot be read or written is a setup error); Save after
// each run.
type StateStore interface {
	Load(ctx context.Context) (map[string]ScheduleState, error)
	Save(ctx context.Context, schedule string, st ScheduleState) error
}

// MemoryStore keeps the states in the process (the state is lost on restart): for --lab and
// tests.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *MemoryStore) Load(context.Context) (map[string]ScheduleState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]ScheduleState{}
	for k, v := range s.m {
		var st ScheduleState
		if err := json.Unmarshal(v, &st); err == nil {
			out[k] = st
		}
	}
	return out, nil
}

func (s *MemoryStore) Save(_ context.Context, name string, st ScheduleState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[name] = data
	return nil
}

// DefaultStateConfigMap is the ConfigMap the schedules' state is kept in.
const DefaultStateConfigMap = "imgupd-summaries"

// ConfigMapStore keeps the states in one ConfigMap in imgupd's own namespace (the Lease's),
// one data key per schedule ("NAME.json", the ScheduleState as JSON). The ConfigMap must exist
// (the Helm chart and deploy/rbac.yaml create it, empty): the store never creates one, because
// Kubernetes cannot restrict a create to one name. It needs get and update on that ConfigMap,
// by name, and reads and writes nothing else.
type ConfigMapStore struct {
	Client    kubeclient.ConfigMapsGetter
	Namespace string
	Name      string
}

// stateKey is the ConfigMap data key of a schedule.
func stateKey(schedule string) string { return schedule + ".json" }

func (s *ConfigMapStore) where() string { return s.Namespace + "/" + s.Name }

// rbacHint names the Role the store needs.
func (s *ConfigMapStore) rbacHint() string {
	return fmt.Sprintf("grant get and update on configmaps named %s in %s, as deploy/rbac.yaml does", s.Name, s.Namespace)
}

// Load reads every schedule's state. A missing ConfigMap, or a missing get or update
// permission, is a setup error that stops the start rather than the first run.
func (s *ConfigMapStore) Load(ctx context.Context) (map[string]ScheduleState, error) {
	cms := s.Client.ConfigMaps(s.Namespace)
	cm, err := cms.Get(ctx, s.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, s.missingError(err)
	case err != nil:
		return nil, s.setupError("read", err)
	default:
		// An update that changes nothing checks the permission and writes nothing
		// (a conflict means the permission is there: another replica wrote).
		if _, uerr := cms.Update(ctx, cm, metav1.UpdateOptions{}); uerr != nil && !apierrors.IsConflict(uerr) {
			return nil, s.setupError("update", uerr)
		}
	}
	out := map[string]ScheduleState{}
	for k, v := range cm.Data {
		name, ok := strings.CutSuffix(k, ".json")
		if !ok {
			continue
		}
		var st ScheduleState
		if err := json.Unmarshal([]byte(v), &st); err != nil {
			continue // a state that does not read is started afresh
		}
		out[name] = st
	}
	return out, nil
}

func (s *ConfigMapStore) setupError(verb string, err error) error {
	if apierrors.IsForbidden(err) {
		return &SetupError{What: "scheduled summaries", Msg: fmt.Sprintf("imgupd may not %s its ConfigMap %s, where the schedules keep their messages and states: %s", verb, s.where(), s.rbacHint()), Err: err}
	}
	return &SetupError{What: "scheduled summaries", Msg: fmt.Sprintf("cannot %s the ConfigMap %s", verb, s.where()), Err: err}
}

// missingError: the ConfigMap does not exist, and imgupd does not create it.
func (s *ConfigMapStore) missingError(err error) error {
	return &SetupError{What: "scheduled summaries", Msg: fmt.Sprintf("the ConfigMap %s, where the schedules keep their messages and states, does not exist: the Helm chart and deploy/rbac.yaml create it (imgupd creates none); without them: kubectl -n %s create configmap %s",
		s.where(), s.Namespace, s.Name), Err: err}
}

// Save writes one schedule's state, retrying on a conflict with a fresh read. A missing
// ConfigMap is an error (the setup error of Load), never created.
func (s *ConfigMapStore) Save(ctx context.Context, name string, st ScheduleState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	cms := s.Client.ConfigMaps(s.Namespace)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm, err := cms.Get(ctx, s.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return s.missingError(err)
		}
		if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[stateKey(name)] = string(data)
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("saving schedule %s's state in the ConfigMap %s: %w", name, s.where(), err)
	}
	return nil
}

// Prune removes the states of schedules no longer configured, keeping those listed.
func (s *ConfigMapStore) Prune(ctx context.Context, keep []string) error {
	cms := s.Client.ConfigMaps(s.Namespace)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm, err := cms.Get(ctx, s.Name, metav1.GetOptions{})
		if err != nil {
			return client404(err)
		}
		var drop []string
		for k := range cm.Data {
			if name, ok := strings.CutSuffix(k, ".json"); ok && !slices.Contains(keep, name) {
				drop = append(drop, k)
			}
		}
		if len(drop) == 0 {
			return nil
		}
		sort.Strings(drop)
		for _, k := range drop {
			delete(cm.Data, k)
		}
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
}

func client404(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
