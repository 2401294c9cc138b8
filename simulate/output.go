package simulate

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/imgupd/imgupd/internal/jsonindent"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
)

// JSON is the documented JSON form of a simulation (docs/cli.md): the
// decision's fields (JSONDecision), every tag's fate, the log lines.
type JSON struct {
	JSONDecision
	Tags []updater.TagFate `json:"tags"`
	Logs []string          `json:"logs,omitempty"`
}

// JSONDecision is what a simulation decided, the fields of JSON before its
// tags.
type JSONDecision struct {
	Image             string       `json:"image"`
	UpdaterVersion    string       `json:"updaterVersion"`
	Registry          JSONRegistry `json:"registry"`
	Strategy          string       `json:"strategy"`
	Constraint        string       `json:"constraint"`
	ConstraintMeaning string       `json:"constraintMeaning,omitempty"`
	Platforms         []string     `json:"platforms,omitempty"`
	Selected          *string      `json:"selected"`
	SelectedDigest    string       `json:"selectedDigest,omitempty"`
	CurrentTag        *string      `json:"currentTag"`
	UpdateNeeded      *bool        `json:"updateNeeded"`
	Outcome           string       `json:"outcome"`
	Reason            string       `json:"reason"`
	Error             string       `json:"error,omitempty"`
	Counts            JSONCounts   `json:"counts"`
}

// JSONParts writes j in parts (jsonindent.Parted): the tags, thousands
// for a busy repository, a slice at a time instead of marshalled whole
// first; the bytes are those of j marshalled whole.
func (j JSON) JSONParts() []jsonindent.Part {
	return []jsonindent.Part{
		jsonindent.Fields(j.JSONDecision),
		jsonindent.Array("tags", len(j.Tags), func(i, k int) any { return j.Tags[i:k] }),
		jsonindent.Fields(struct {
			Logs []string `json:"logs,omitempty"`
		}{j.Logs}),
	}
}

// JSONRegistry says which endpoint was used and why.
type JSONRegistry struct {
	Name        string `json:"name"`
	APIURL      string `json:"apiURL"`
	Repository  string `json:"repository"`
	Matched     string `json:"matched"`
	Credentials string `json:"credentials"`
}

// JSONCounts are the tag counts at each step.
type JSONCounts struct {
	Listed       int `json:"listed"`
	AfterFilters int `json:"afterFilters"`
	Candidates   int `json:"candidates"`
}

// NewJSON converts a result to its JSON form.
func NewJSON(r Result) JSON {
	d := r.Decision
	j := JSON{JSONDecision: JSONDecision{
		Image:             d.Image,
		UpdaterVersion:    d.Version,
		Strategy:          d.Strategy.String(),
		Constraint:        d.Constraint,
		ConstraintMeaning: d.ConstraintMeaning,
		UpdateNeeded:      d.UpdateNeeded,
		Outcome:           string(d.Outcome),
		Reason:            d.Reason,
		Counts:            JSONCounts{Listed: d.Listed, AfterFilters: d.Filtered, Candidates: d.Candidates},
		Registry: JSONRegistry{
			Name: r.Endpoint.Name, APIURL: r.APIURL, Repository: r.Repository,
			Matched: r.Resolution.Summary, Credentials: r.CredentialsUsed,
		},
	}, Tags: d.Tags, Logs: d.Logs}
	if j.Tags == nil {
		j.Tags = []updater.TagFate{}
	}
	if d.Platforms != nil {
		for _, p := range d.Platforms.Platforms {
			j.Platforms = append(j.Platforms, p.String())
		}
	}
	if d.Selected != nil && !d.Selected.FromRunningTag {
		tag := d.Selected.Tag
		j.Selected = &tag
		j.SelectedDigest = d.Selected.Digest
	}
	if d.RunningTag != "" || d.RunningDigest != "" || d.UpdateNeeded != nil {
		cur := updater.ImageRef{Tag: d.RunningTag, Digest: d.RunningDigest}.TagWithDigest()
		j.CurrentTag = &cur
	}
	if d.Err != nil {
		j.Error = d.Err.Log
	}
	return j
}

// TextOptions shape the text output.
type TextOptions struct {
	// All lists every tag; otherwise the top candidates and a sample of the
	// dropped tags are shown, with counts for the rest.
	All bool
}

const (
	textCandidates = 10
	textDropped    = 15
)

// WriteText prints a readable report with the candidate table. Every
// value the registry or the flags gave (tags, error text, the image) is
// shown on one line with its controls visible (textutil.Visible): a tag
// name cannot move the cursor, break the table or start a line.
func WriteText(w io.Writer, r Result, o TextOptions) {
	d := r.Decision
	vis := textutil.Visible
	kv := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(kv, "Image\t%s\n", vis(d.Image))
	fmt.Fprintf(kv, "Registry\t%s · repository %s · %s credentials · endpoint %s\n", vis(r.APIURL), vis(r.Repository), vis(r.CredentialsUsed), vis(string(r.Resolution.Rule)))
	fmt.Fprintf(kv, "Updater\t%s\n", vis(d.Version))
	c := vis(d.Constraint)
	if c == "" {
		c = "(none)"
	}
	strategy := d.Strategy.String()
	if d.ConstraintMeaning != "" {
		fmt.Fprintf(kv, "Strategy\t%s · constraint %s: %s\n", strategy, c, vis(d.ConstraintMeaning))
	} else {
		fmt.Fprintf(kv, "Strategy\t%s · constraint %s is not used by this strategy\n", strategy, c)
	}
	if d.Platforms != nil {
		src := "configured"
		if d.Platforms.FromController {
			src = "the controller's platform, none configured"
		}
		fmt.Fprintf(kv, "Platforms\t%s (%s)\n", vis(d.Platforms.String()), src)
	}
	fmt.Fprintf(kv, "Tags\t%d listed · %d after filters · %d candidates\n", d.Listed, d.Filtered, d.Candidates)
	if d.RunningTag != "" || d.RunningDigest != "" || d.UpdateNeeded != nil {
		fmt.Fprintf(kv, "Running\t%s\n", vis(updater.ImageRef{Tag: d.RunningTag, Digest: d.RunningDigest}.TagWithDigest()))
	}
	pick := "none"
	if d.Selected != nil {
		pick = vis(d.Selected.String())
		if d.Selected.FromRunningTag {
			pick += " (the running tag, kept because no tag survived)"
		}
	}
	fmt.Fprintf(kv, "Pick\t%s\n", pick)
	fmt.Fprintf(kv, "Outcome\t%s: %s\n", d.Outcome, vis(d.Reason))
	kv.Flush()

	if len(d.Tags) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "RANK\tTAG\tFATE\tWHY")
		shownCand, shownDrop := 0, 0
		hidden := map[updater.Fate]int{}
		for _, f := range d.Tags {
			if !o.All {
				if f.Kept && shownCand >= textCandidates {
					hidden["more candidates"]++
					continue
				}
				if !f.Kept && shownDrop >= textDropped {
					hidden[f.Fate]++
					continue
				}
			}
			rank := ""
			if f.Rank > 0 {
				rank = fmt.Sprint(f.Rank)
				shownCand++
			} else {
				shownDrop++
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", rank, vis(f.Tag), vis(strings.TrimPrefix(string(f.Fate), "dropped: ")), vis(f.Why))
		}
		tw.Flush()
		if len(hidden) > 0 {
			var parts []string
			total := 0
			for f, n := range hidden {
				parts = append(parts, fmt.Sprintf("%d %s", n, strings.TrimPrefix(string(f), "dropped: ")))
				total += n
			}
			sort.Strings(parts)
			fmt.Fprintf(w, "… %d more not shown (%s); --all lists every tag\n", total, strings.Join(parts, ", "))
		}
	}
	var warn []string
	for _, l := range d.Logs {
		if strings.HasPrefix(l, "warn: ") || strings.HasPrefix(l, "error: ") {
			warn = append(warn, l)
		}
	}
	if len(warn) > 0 {
		fmt.Fprintln(w, "\nImage Updater would log:")
		for _, l := range warn {
			fmt.Fprintln(w, "  "+vis(l))
		}
	}
}
