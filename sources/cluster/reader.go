package cluster

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// Reader reads everything the diagnosis needs from one cluster: core objects
// through Kube, Argo CD and Image Updater objects through Dynamic, container
// logs through Logs. It never writes. Every error it returns is an
// *AccessError naming the refused or failed read.
//
// Tests and the lab build a Reader from client-go fakes or a local API
// server and inject their own LogSource (an API server without kubelets
// cannot serve logs).
type Reader struct {
	Kube    Kube
	Dynamic dynamic.Interface
	// Metadata, when set, lists objects with their metadata only
	// (ApplicationsMetadata); nil lists them whole through Dynamic.
	Metadata metadata.Interface
	// Raw, when set, is a REST client of the API server's root: lists of
	// Argo CD and Image Updater objects are decoded from its JSON into
	// their types at once, not through the dynamic client's maps; nil
	// lists them through Dynamic.
	Raw rest.Interface
	// Logs serves container logs; nil means KubeLogs over Kube.
	Logs LogSource
	// ListsFromCache, when set, asks the API server for its lists of
	// Applications, ApplicationSets and ImageUpdater CRs from its watch
	// cache (resourceVersion=0, as the informers of Argo CD's and Image
	// Updater's controllers list them): what they see, without the read
	// of every object from etcd that a list at the newest revision costs
	// an API server whose etcd cannot prove its cache fresh (etcd before
	// 3.4.31 and 3.5.13, Kubernetes before 1.31). A write may reach the
	// cache a few milliseconds after it is acknowledged. Reads of one
	// object by name are always at the newest revision. See
	// WithListsFromCache.
	ListsFromCache bool
}

// WithListsFromCache is r with ListsFromCache set (the fleet scan's
// reads: a summary or a "where" over many apps); r is not changed.
func (r *Reader) WithListsFromCache() *Reader {
	c := *r
	c.ListsFromCache = true
	return &c
}

// listOptions are the options of a list of Argo CD or Image Updater
// objects (see ListsFromCache).
func (r *Reader) listOptions() metav1.ListOptions {
	if r.ListsFromCache {
		return metav1.ListOptions{ResourceVersion: "0"}
	}
	return metav1.ListOptions{}
}

// NewReader builds a Reader for cfg with client-go's typed and dynamic
// clients and logs read through the API server.
func NewReader(cfg *rest.Config) (*Reader, error) {
	kube, err := NewClients(cfg)
	if err != nil {
		return nil, fmt.Errorf("building a Kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building a dynamic Kubernetes client: %w", err)
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building a metadata Kubernetes client: %w", err)
	}
	return &Reader{Kube: kube, Dynamic: dyn, Metadata: meta, Raw: kube.Root(), Logs: KubeLogs{Pods: kube.CoreV1()}}, nil
}

// Secret returns the data of a Secret (see Secrets.Secret); with it a Reader
// serves the Secret half of the updater model's CredentialSource.
func (r *Reader) Secret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	return Secrets{Client: r.Kube.CoreV1()}.Secret(ctx, ns, name)
}
