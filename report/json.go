package report

import (
	"encoding/json"

	"github.com/imgupd/imgupd/model/updater"
)

// The JSON of a report, a summary and a where answer writes every list
// that is not omitted when empty as [], never null: a script reads
// `.stages[].findings | length` or iterates `.apps[]` without a null check.
// Each type below marshals a copy of itself (a defined type without the
// method) whose nil lists are made empty; reading JSON back is unchanged.

// emptyIfNil is s, or an empty list when s is nil.
func emptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// MarshalJSON writes Stages as [] when there is none.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	p := plain(r)
	p.Stages = emptyIfNil(p.Stages)
	return json.Marshal(p)
}

// MarshalJSON writes Findings as [] when there is none (a skipped stage).
func (s StageResult) MarshalJSON() ([]byte, error) {
	type plain StageResult
	p := plain(s)
	p.Findings = emptyIfNil(p.Findings)
	return json.Marshal(p)
}

// MarshalJSON writes the decision's Tags as [] when none was listed.
func (c CandidateTable) MarshalJSON() ([]byte, error) {
	type plain CandidateTable
	p := plain(c)
	p.Decision.Tags = emptyIfNil[updater.TagFate](p.Decision.Tags)
	return json.Marshal(p)
}

// MarshalJSON writes Counts and Attention as [] when empty.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	p := plain(s)
	p.Counts = emptyIfNil(p.Counts)
	p.Attention = emptyIfNil(p.Attention)
	return json.Marshal(p)
}

// MarshalJSON writes Apps as [] when empty.
func (g SummaryGroup) MarshalJSON() ([]byte, error) {
	type plain SummaryGroup
	p := plain(g)
	p.Apps = emptyIfNil(p.Apps)
	return json.Marshal(p)
}

// MarshalJSON writes Apps as [] when no app uses the repository.
func (w Where) MarshalJSON() ([]byte, error) {
	type plain Where
	p := plain(w)
	p.Apps = emptyIfNil(p.Apps)
	return json.Marshal(p)
}
