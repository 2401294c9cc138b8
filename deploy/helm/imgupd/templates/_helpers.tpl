{{/* The chart's name, at most 63 characters (a label value). */}}
{{- define "imgupd.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of every object: the release name when it already contains the
chart's name ("imgupd"), else "<release>-imgupd". Object names derived from it
add a suffix, so it is cut to 52 characters.
*/}}
{{- define "imgupd.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "imgupd.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "imgupd.labels" -}}
helm.sh/chart: {{ include "imgupd.chart" . }}
{{ include "imgupd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: slack-bot
app.kubernetes.io/part-of: imgupd
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The labels that select imgupd's pods. */}}
{{- define "imgupd.selectorLabels" -}}
app.kubernetes.io/name: {{ include "imgupd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "imgupd.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "imgupd.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The subject every binding names. */}}
{{- define "imgupd.subjects" -}}
- kind: ServiceAccount
  name: {{ include "imgupd.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
{{- end }}

{{- define "imgupd.slackSecretName" -}}
{{- default (printf "%s-slack" (include "imgupd.fullname" .)) .Values.slack.secret.name }}
{{- end }}

{{- define "imgupd.configMapName" -}}
{{- default (printf "%s-config" (include "imgupd.fullname" .)) .Values.config.existingConfigMap }}
{{- end }}

{{- define "imgupd.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
The configuration file: config.serve (its empty values left out: serve's
defaults) over the namespaces the chart knows, config.access, and
config.clusters and config.schedules when there are any. Tokens never
go here: they come from the Secret, through the environment.
*/}}
{{- define "imgupd.config" -}}
{{- $serve := mustMergeOverwrite (dict "namespace" .Values.argocd.namespace "updater-namespace" .Values.imageUpdater.namespace "argocd-service-account" .Values.argocd.serviceAccount) (deepCopy (.Values.config.serve | default dict)) }}
{{- range $k, $v := $serve }}
{{- if empty $v }}{{ $_ := unset $serve $k }}{{ end }}
{{- end }}
{{- $config := dict "serve" $serve "access" .Values.config.access }}
{{- with .Values.config.clusters }}{{ $_ := set $config "clusters" . }}{{ end }}
{{- with .Values.config.schedules }}{{ $_ := set $config "schedules" . }}{{ end }}
{{- toYaml $config }}
{{- end }}

{{/*
The namespaces where named Secrets may be read: Argo CD's, Image Updater's
and those rbac.secrets.namespaces lists, sorted, once each.
*/}}
{{- define "imgupd.secretNamespaces" -}}
{{- $ns := concat (list .Values.argocd.namespace .Values.imageUpdater.namespace) .Values.rbac.secrets.namespaces | uniq | sortAlpha }}
{{- toJson $ns }}
{{- end }}

{{/* The ConfigMap where the scheduled summaries keep their state (created by the chart, written by imgupd). */}}
{{- define "imgupd.summariesConfigMapName" -}}
{{- printf "%s-summaries" (include "imgupd.fullname" .) }}
{{- end }}

{{/* The PromQL label matchers of this release's series (prometheusRule.selector, default its ServiceMonitor's job). */}}
{{- define "imgupd.metricSelector" -}}
{{- default (printf "job=%q" (include "imgupd.fullname" .)) .Values.prometheusRule.selector }}
{{- end }}

{{/*
The Secrets of the release namespace that config.clusters names (kubeconfigSecret, tokenSecret,
caSecret): imgupd may get these, by name, and no other Secret there. Sorted, once each; [] when
no cluster names one.
*/}}
{{- define "imgupd.clusterSecretNames" -}}
{{- $names := list }}
{{- range .Values.config.clusters }}
{{- range $ref := list .kubeconfigSecret .tokenSecret .caSecret }}
{{- if and $ref $ref.name }}{{ $names = append $names $ref.name }}{{ end }}
{{- end }}
{{- end }}
{{- toJson ($names | uniq | sortAlpha) }}
{{- end }}
