// Package simulate is `imgupd simulate IMAGE`: which tag Image Updater would pick for an image, and why every other tag was not.
package simulate

import "github.com/imgupd/imgupd/commands/command"

// Spec is simulate's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "simulate",
		Args:     "IMAGE",
		Surfaces: command.Terminal,
		Reads:    command.ReadsRegistry,
		Short:    "Show which tag Image Updater would pick for an image, and why every other tag was not",
		Long: `simulate lists the image's tags from the real registry and runs Image Updater's
tag selection on them, like 'argocd-image-updater test', but it takes the
constraint from IMAGE:constraint, defaults to the controller's platform
(linux/amd64) instead of your laptop's, knows the running tag, follows the
behaviour of the Image Updater version you name, and explains each tag's fate.`,
		Example: `  imgupd simulate ghcr.io/acme/app:~1.2 --current-tag 1.2.3
  imgupd simulate nginx --update-strategy newest-build --ignore-tags latest --output json
  imgupd simulate registry.local:5000/team/api --plain-http --allow-tags 'regexp:^v[0-9.]+$'`,
		Term: Term(Run),
	}
}
