// Package resourcelock is client-go's k8s.io/client-go/tools/leaderelection/resourcelock
// without NewFromKubeconfig, the one function that builds client-go's whole
// clientset: its files are copied by ../generate.sh (see ../doc.go).
package resourcelock
