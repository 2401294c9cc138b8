// Package argo holds small typed views of the Argo CD objects the diagnosis
// reads (argoproj.io/v1alpha1 Application, AppProject, ApplicationSet) and
// the resource names used to read them and Image Updater's ImageUpdater CRs
// through the dynamic client.
//
// The structs carry only the fields the diagnosis uses; their JSON names are
// exactly Argo CD's, so a stored object (from the API server or kubectl -o
// yaml) decodes into them and unknown fields are ignored. The package does no
// I/O and decides nothing.
package argo
