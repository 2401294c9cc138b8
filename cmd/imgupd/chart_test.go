package main

import (
	"encoding/json"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// chartSetsServe are the flags of serve the Helm chart sets itself, so that its values.schema.json
// leaves them out of config.serve: the listen port (the probes and the Service use it), leader
// election (leaderElection.*), the schedules' ConfigMap (its RBAC names it), the namespaces its RBAC is written for (argocd.namespace,
// imageUpdater.namespace), and what has no meaning in a pod.
var chartSetsServe = []string{"listen", "leader-elect", "leader-election-name", "leader-election-namespace",
	"namespace", "updater-namespace", "kubeconfig", "context", "lab", "summaries-configmap", "argocd-service-account"}

// TestChartSchemaKnowsEveryServeFlag: a flag added to serve is either a config.serve value of the
// chart (values.schema.json) or one the chart sets; the schema names no flag serve lacks.
func TestChartSchemaKnowsEveryServeFlag(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/helm/imgupd/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties struct {
			Config struct {
				Properties struct {
					Serve struct {
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"serve"`
				} `json:"properties"`
			} `json:"config"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	var inSchema []string
	for k := range schema.Properties.Config.Properties.Serve.Properties {
		inSchema = append(inSchema, k)
	}
	var flags []string
	newServeCmd(viper.New(), streams{}, func(string) (string, bool) { return "", false }).Flags().VisitAll(func(f *pflag.Flag) {
		flags = append(flags, f.Name)
	})
	covered := append(append([]string{}, inSchema...), chartSetsServe...)
	sort.Strings(covered)
	sort.Strings(flags)
	for _, f := range flags {
		if !slices.Contains(covered, f) {
			t.Errorf("serve --%s is neither in the chart's config.serve schema nor set by the chart", f)
		}
	}
	for _, k := range covered {
		if !slices.Contains(flags, k) {
			t.Errorf("the chart knows serve.%s, which is not a flag of serve", k)
		}
	}
	for _, k := range inSchema {
		if slices.Contains(chartSetsServe, k) {
			t.Errorf("config.serve.%s is in the schema although the chart sets it", k)
		}
	}
}

// TestChartConfigIsAccepted: the chart's default configuration (generated into the Kustomize
// base) passes config check.
func TestChartConfigIsAccepted(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "config", "check", "--config", "../../deploy/kustomize/base/config.yaml")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}
