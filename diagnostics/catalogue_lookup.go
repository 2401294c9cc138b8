package diagnostics

import (
	"sync"

	"github.com/imgupd/imgupd/report"
)

// The finding builders' view of the catalogue (package report holds it):
// each code's entry, and the finding code and stage of each of the model's
// problems, built on first use (no work at program start).

// catalogue is every entry by code.
var catalogue = sync.OnceValue(report.CatalogueByCode)

// problemDoc is the finding code and stage of one updater.Problem code.
type problemDoc struct {
	code  report.Code
	stage report.StageID
}

// problemsByCode maps the model's problem codes to their finding codes.
var problemsByCode = sync.OnceValue(func() map[string]problemDoc {
	m := map[string]problemDoc{}
	for p, f := range report.ProblemFindings() {
		m[p] = problemDoc{code: f.Code, stage: f.Stage}
	}
	return m
})
