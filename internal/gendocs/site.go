package gendocs

import (
	"path"

	"github.com/spf13/cobra"
)

// Site renders every generated page, keyed by its path below docs/.
func Site(root *cobra.Command) (map[string][]byte, error) {
	pages := map[string][]byte{}
	for name, p := range Commands(root) {
		pages[path.Join(CommandDir, name)] = p
	}
	for name, render := range map[string]func() ([]byte, error){
		"troubleshooting.md":                 Troubleshooting,
		"reference/generated/normalizers.md": Normalizers,
		"reference/generated/presets.md":     Presets,
	} {
		p, err := render()
		if err != nil {
			return nil, err
		}
		pages[name] = p
	}
	return pages, nil
}
