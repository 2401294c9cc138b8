package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/report"
)

// Where asks "where is my tag?": every Application Image Updater manages (in Scope, that the
// asker may see) whose images use Image's repository, and whether the tag reaches each.
type Where struct {
	// Image is IMAGE[:TAG|@DIGEST] as typed.
	Image string
	Scope report.Scope
}

func (Where) verb() string { return "where" }

const whereUsage = "`where IMAGE[:TAG|@DIGEST]`, e.g. `where ghcr.io/acme/web:1.4.2` (" + summaryUsage + ")"

// parseWhere reads `where IMAGE[:TAG|@DIGEST] [-n NS] [--project P] [--name GLOB] [--selector SEL]`.
func parseWhere(input string, words []string) (Command, error) {
	sc, rest, err := parseScope(input, "where", words)
	if err != nil {
		return nil, err
	}
	if len(rest) != 1 {
		return nil, &ParseError{Input: input, Reason: "where takes one image: " + whereUsage}
	}
	image := unlink(rest[0])
	if _, err := fleet.ParseImageQuery(image); err != nil {
		pe := &ParseError{Input: input, Reason: fmt.Sprintf("%q is not an image: write REGISTRY/PATH[:TAG|@DIGEST] (no alias, version constraint or space), e.g. `where ghcr.io/acme/web:1.4.2`", clip(image))}
		if low := strings.ToLower(image); low != image {
			if _, err := fleet.ParseImageQuery(low); err == nil {
				pe.Suggestion = "where " + low
			}
		}
		return nil, pe
	}
	return Where{Image: image, Scope: sc}, nil
}

// unlink undoes Slack's link formatting of a word it took for a URL: "<http://ghcr.io/acme/web|ghcr.io/acme/web>"
// and "<https://x>" are the text the asker typed.
func unlink(s string) string {
	if !strings.HasPrefix(s, "<") || !strings.HasSuffix(s, ">") {
		return s
	}
	in := s[1 : len(s)-1]
	if _, label, ok := strings.Cut(in, "|"); ok {
		return label
	}
	for _, p := range []string{"http://", "https://"} {
		if rest, ok := strings.CutPrefix(in, p); ok {
			return rest
		}
	}
	return s
}

// String is the command as it is typed.
func (w Where) String() string {
	s := Summary{Scope: w.Scope}.String()
	return "where " + w.Image + strings.TrimPrefix(s, "summary")
}

// where answers a Where over the scope narrowed to what the asker may see: the scan reads,
// answers and counts nothing else, and names no repository only a hidden app uses.
func (s *Service) where(ctx context.Context, pr Principal, c Where, rule string) Result {
	if s.Fleet == nil {
		return Result{Kind: KindNotBuilt, Command: c, Text: "`where` is not available in this imgupd (it has no fleet scanner). Use `diagnose APP` for one application."}
	}
	q, err := fleet.ParseImageQuery(c.Image)
	if err != nil {
		return Result{Kind: KindInvalid, Command: c, Text: err.Error()}
	}
	timeout := s.SummaryTimeout
	if timeout <= 0 {
		timeout = DefaultSummaryTimeout
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	w, err := s.Fleet.Where(sctx, s.Policy.ScopeFor(pr, c.Scope), q)
	if err != nil {
		what := "the Applications that use " + c.Image
		if errors.Is(err, fleet.ErrNoUpdater) {
			what = "Image Updater's installation"
		}
		return Result{Kind: KindError, Command: c, Text: readError(what, err)}
	}
	out := Result{Kind: KindWhere, Command: c, Where: w, Rule: rule}
	for _, l := range w.Apps {
		if d := s.Policy.Decide(pr, Scope{Namespace: l.App.Namespace, Project: projectOr(l.Project)}); d.Private {
			out.Private = PrivateText(d.Rule, fmt.Sprintf("Applications that use `%s`", c.Image))
			break
		}
	}
	return out
}
