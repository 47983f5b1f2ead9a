{{/*
fullname prefixes every object. With the release named "cassbench" (as in docs/install.md)
names equal config/default's: cassbench-manager, cassbench-leader-election, ...
*/}}
{{- define "cassbench.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 45 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 45 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "cassbench.managerName" -}}
{{- include "cassbench.fullname" . }}-manager
{{- end -}}

{{/* Labels on every object. */}}
{{- define "cassbench.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: cassbench
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selects the manager's pods; immutable once installed, so never the version. */}}
{{- define "cassbench.selectorLabels" -}}
app.kubernetes.io/name: cassbench
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end -}}

{{/* repository@digest when a digest is given (the tag is then not used), else repository:tag. */}}
{{- define "cassbench.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}
