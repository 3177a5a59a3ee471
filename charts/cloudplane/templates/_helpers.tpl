{{/* The chart name, or nameOverride. */}}
{{- define "cloudplane.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object name. Kept to 40 characters so that "<fullname>-garbage-collection"
stays within the 52 characters a CronJob name may have.
*/}}
{{- define "cloudplane.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "cloudplane.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. Call with (dict "root" $ "component" "<component>"). */}}
{{- define "cloudplane.labels" -}}
helm.sh/chart: {{ include "cloudplane.chart" .root }}
{{ include "cloudplane.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: cloudplane
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end }}

{{/* The labels a component's selector matches. Call with (dict "root" $ "component" "<component>"). */}}
{{- define "cloudplane.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cloudplane.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "cloudplane.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The Secret holding DATABASE_URL; fails the render when the database is not configured. */}}
{{- define "cloudplane.databaseSecretName" -}}
{{- $db := .Values.database }}
{{- if and $db.url $db.existingSecret }}
{{- fail "database: set either database.url or database.existingSecret, not both" }}
{{- else if $db.url }}
{{- printf "%s-database" (include "cloudplane.fullname" .) }}
{{- else if $db.existingSecret }}
{{- $db.existingSecret }}
{{- else }}
{{- fail "database: cluster mode needs PostgreSQL; set database.url, or database.existingSecret and database.existingSecretKey" }}
{{- end }}
{{- end }}

{{- define "cloudplane.databaseSecretKey" -}}
{{- if .Values.database.url }}DATABASE_URL{{ else }}{{ .Values.database.existingSecretKey }}{{ end }}
{{- end }}

{{/* Pod-level security: no root, the runtime's default seccomp profile. */}}
{{- define "cloudplane.podSecurityContext" -}}
runAsNonRoot: true
# The node user of the image; numeric so the kubelet can verify runAsNonRoot.
runAsUser: 1000
runAsGroup: 1000
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "cloudplane.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop:
    - ALL
{{- end }}

{{/* Pod annotations: a changed database URL rolls the pods. */}}
{{- define "cloudplane.podAnnotations" -}}
{{- if .Values.database.url }}
checksum/database: {{ .Values.database.url | sha256sum }}
{{- end }}
{{- end }}

{{/* Environment every container gets, before its own. */}}
{{- define "cloudplane.env" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "cloudplane.databaseSecretName" . }}
      key: {{ include "cloudplane.databaseSecretKey" . }}
- name: CLOUDPLANE_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- with .Values.baseUrl }}
- name: CLOUDPLANE_BASE_URL
  value: {{ . | quote }}
{{- end }}
# The root filesystem is read-only; anything written goes to the emptyDir on /tmp.
- name: CLOUDPLANE_DATA_DIR
  value: /tmp/cloudplane
{{- end }}

{{/* Pod spec fields shared by every workload: scheduling, pull secrets, security, /tmp. */}}
{{- define "cloudplane.podCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- include "cloudplane.podSecurityContext" . | nindent 2 }}
volumes:
  - name: tmp
    emptyDir: {}
{{- end }}

{{/* The cloudplane kinds, as plural resource names, read from the CRDs the chart installs. */}}
{{- define "cloudplane.kindPlurals" -}}
{{- $plurals := list }}
{{- range $path, $_ := .Files.Glob "crds/*.yaml" }}
{{- $crd := $.Files.Get $path | fromYaml }}
{{- $plurals = append $plurals $crd.spec.names.plural }}
{{- end }}
{{- toJson (sortAlpha $plurals) }}
{{- end }}
