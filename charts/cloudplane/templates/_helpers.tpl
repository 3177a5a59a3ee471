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

{{/* The Secret the chart keeps the secret settings given as values in. */}}
{{- define "cloudplane.secretsName" -}}
{{- printf "%s-secrets" (include "cloudplane.fullname" .) }}
{{- end }}

{{/*
The secret settings, as a JSON list: the variable, the value given (kept in the chart Secret under
the variable's name), the existing Secret and key to read it from instead, and the values' path
for messages. `required` is the message when neither is given.
*/}}
{{- define "cloudplane.secretSettings" -}}
{{- $v := .Values }}
{{- $settings := list
  (dict "env" "CLOUDPLANE_KMS_KEY" "path" "platformKey" "valueField" "value"
    "value" $v.platformKey.value "existingSecret" $v.platformKey.existingSecret "existingSecretKey" $v.platformKey.existingSecretKey
    "required" "platformKey: cluster mode needs the platform key CLOUDPLANE_KMS_KEY, which every secret at rest is sealed under; set platformKey.value (from: openssl rand -base64 32), or platformKey.existingSecret and platformKey.existingSecretKey")
  (dict "env" "CLOUDPLANE_SMTP_URL" "path" "mail" "valueField" "smtpUrl"
    "value" $v.mail.smtpUrl "existingSecret" $v.mail.existingSecret "existingSecretKey" $v.mail.existingSecretKey)
  (dict "env" "CLOUDPLANE_METRICS_TOKEN" "path" "metrics" "valueField" "token"
    "value" $v.metrics.token "existingSecret" $v.metrics.existingSecret "existingSecretKey" $v.metrics.existingSecretKey)
  (dict "env" "CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET" "path" "oauth.identity" "valueField" "clientSecret"
    "value" $v.oauth.identity.clientSecret "existingSecret" $v.oauth.identity.existingSecret "existingSecretKey" $v.oauth.identity.existingSecretKey)
  (dict "env" "CLOUDPLANE_OAUTH_CODEHOST_CLIENT_SECRET" "path" "oauth.codehost" "valueField" "clientSecret"
    "value" $v.oauth.codehost.clientSecret "existingSecret" $v.oauth.codehost.existingSecret "existingSecretKey" $v.oauth.codehost.existingSecretKey) }}
{{- toJson $settings }}
{{- end }}

{{/* The `data` of the chart Secret: every secret setting given as a value, base64-encoded. */}}
{{- define "cloudplane.secretsData" -}}
{{- range include "cloudplane.secretSettings" . | fromJsonArray }}
{{- if .value }}
{{ .env }}: {{ .value | b64enc | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* A provider with a client id needs its client secret, its issuer (identity) and a redirect URI. */}}
{{- define "cloudplane.checkOauth" -}}
{{- $oauth := .Values.oauth }}
{{- range $name := list "identity" "codehost" }}
{{- $provider := get $oauth $name }}
{{- if $provider.clientId }}
{{- if not (or $provider.clientSecret $provider.existingSecret) }}
{{- fail (printf "oauth.%s: a clientId needs its client secret; set oauth.%s.clientSecret, or oauth.%s.existingSecret and oauth.%s.existingSecretKey" $name $name $name $name) }}
{{- end }}
{{- if and (eq $name "identity") (not $provider.issuer) }}
{{- fail "oauth.identity: a clientId needs oauth.identity.issuer" }}
{{- end }}
{{- if not $oauth.redirectUris }}
{{- fail (printf "oauth.redirectUris: at least one URI is needed once oauth.%s.clientId is set" $name) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Environment of the API server and the operator, after cloudplane.env. Both get the platform key
(the vault engine runs in both) and the metrics token; only the API server (`api` true) gets
mail, account limits and OAuth, which the operator never uses. Only settings with a value are
set. The jobs get none of it: they decrypt nothing, send nothing and serve nothing.
Called with (dict "root" . "api" true|false).
*/}}
{{- define "cloudplane.serverEnv" -}}
{{- $root := .root }}
{{- $api := .api }}
{{- include "cloudplane.checkOauth" $root }}
{{- range include "cloudplane.secretSettings" $root | fromJsonArray }}
{{- if not (or $api (has .env (list "CLOUDPLANE_KMS_KEY" "CLOUDPLANE_METRICS_TOKEN"))) }}
{{- else if and .value .existingSecret }}
{{- fail (printf "%s: set either %s.%s or %s.existingSecret, not both" .path .path .valueField .path) }}
{{- else if or .value .existingSecret }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ if .value }}{{ include "cloudplane.secretsName" $root }}{{ else }}{{ .existingSecret }}{{ end }}
      key: {{ if .value }}{{ .env }}{{ else }}{{ .existingSecretKey }}{{ end }}
{{- else if .required }}
{{- fail .required }}
{{- end }}
{{- end }}
{{- if $api }}
{{- with $root.Values.mail.from }}
- name: CLOUDPLANE_MAIL_FROM
  value: {{ . | quote }}
{{- end }}
{{- $accounts := $root.Values.accounts }}
{{- $numbers := dict
  "CLOUDPLANE_ACCESS_TOKEN_TTL" $accounts.accessTokenTtlSeconds
  "CLOUDPLANE_REFRESH_TOKEN_TTL" $accounts.refreshTokenTtlSeconds
  "CLOUDPLANE_LOGIN_MAX_FAILURES" $accounts.login.maxFailures
  "CLOUDPLANE_LOGIN_MAX_FAILURES_PER_ADDRESS" $accounts.login.maxFailuresPerAddress
  "CLOUDPLANE_LOGIN_LOCKOUT_SECONDS" $accounts.login.lockoutSeconds }}
{{- range $name, $number := $numbers }}
{{- if $number }}
- name: {{ $name }}
  value: {{ $number | int64 | toString | quote }}
{{- end }}
{{- end }}
{{- $oauth := $root.Values.oauth }}
{{- $identity := $oauth.identity }}
{{- $codehost := $oauth.codehost }}
{{- $plain := list
  (list "CLOUDPLANE_OAUTH_REDIRECT_URIS" (join "," $oauth.redirectUris))
  (list "CLOUDPLANE_OAUTH_IDENTITY_ISSUER" $identity.issuer)
  (list "CLOUDPLANE_OAUTH_IDENTITY_CLIENT_ID" $identity.clientId)
  (list "CLOUDPLANE_OAUTH_CODEHOST_CLIENT_ID" $codehost.clientId)
  (list "CLOUDPLANE_OAUTH_CODEHOST_AUTHORIZE_URL" $codehost.authorizeUrl)
  (list "CLOUDPLANE_OAUTH_CODEHOST_TOKEN_URL" $codehost.tokenUrl)
  (list "CLOUDPLANE_OAUTH_CODEHOST_USER_URL" $codehost.userUrl)
  (list "CLOUDPLANE_OAUTH_CODEHOST_EMAILS_URL" $codehost.emailsUrl)
  (list "CLOUDPLANE_OAUTH_CODEHOST_SCOPES" (join " " $codehost.scopes)) }}
{{- range $plain }}
{{- if index . 1 }}
- name: {{ index . 0 }}
  value: {{ index . 1 | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* Pod annotations of the API server and the operator: a changed setting in the chart Secret rolls them too. */}}
{{- define "cloudplane.serverPodAnnotations" -}}
{{- include "cloudplane.podAnnotations" . }}
{{- with include "cloudplane.secretsData" . | trim }}
checksum/secrets: {{ . | sha256sum }}
{{- end }}
{{- end }}
