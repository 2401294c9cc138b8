package forge

import "github.com/imgupd/imgupd/model/advice"

// Facts is what the failure says, for the advice the engine gives
// (package advice): this package classifies, it does not advise.
func (e *Error) Facts() advice.Forge {
	f := advice.Forge{Kind: string(e.Kind), Op: e.Op, Repo: e.Repo, Branch: e.Branch, Scope: e.Scope}
	if e.Forge != Unknown {
		f.Forge = e.Forge.String()
	}
	return f
}
