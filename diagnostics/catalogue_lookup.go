package diagnostics

// The finding builders' view of the catalogue (package report holds it, see
// reportnames.go): each code's entry, and the finding code and stage of each
// of the model's problems.

// catalogue is every entry by code.
var catalogue = CatalogueByCode()

// problemDoc is the finding code and stage of one updater.Problem code.
type problemDoc struct {
	code  Code
	stage StageID
}

// problemsByCode maps the model's problem codes to their finding codes.
var problemsByCode = func() map[string]problemDoc {
	m := map[string]problemDoc{}
	for p, f := range ProblemFindings() {
		m[p] = problemDoc{code: f.Code, stage: f.Stage}
	}
	return m
}()
