/**
 * The platform's settings: each owner declares and validates its slice in a module of its own
 * here, and receives only that slice; `loadConfig` composes them. Every value is read and checked
 * at start-up, and the first bad one stops the process with one line naming the variable.
 */
import { accountsConfig, type AccountsConfig } from './accounts.js';
import type { Env } from './env.js';
import { httpConfig, type HttpConfig } from './http.js';
import { integrationsConfig, type IntegrationsConfig } from './integrations.js';
import { jobsConfig, type JobsConfig } from './jobs.js';
import { mailConfig, type MailConfig } from './mail.js';
import { oauthConfig, type OAuthConfig } from './oauth.js';
import { platformKeyConfig, type PlatformKeyConfig } from './platform-key.js';
import { processConfig, type ProcessConfig } from './process.js';
import { quotasConfig, type QuotasConfig } from './quotas.js';
import { streamingConfig, type StreamingConfig } from './streaming.js';
import { vpcConfig, type VpcConfig } from './vpc.js';
import { workloadsConfig, type WorkloadsConfig } from './workloads.js';

export interface Config {
  /** The composition roots: files, databases, clusters, logs. */
  process: ProcessConfig;
  /** The REST facade's listener and edge. */
  http: HttpConfig;
  /** The key secrets at rest are sealed under. */
  platformKey: PlatformKeyConfig;
  accounts: AccountsConfig;
  mail: MailConfig;
  oauth: OAuthConfig;
  vpc: VpcConfig;
  integrations: IntegrationsConfig;
  /** The scheduled jobs. */
  jobs: JobsConfig;
  /** Where managed data services run. */
  workloads: WorkloadsConfig;
  /** What an organization may hold of the managed data services. */
  quotas: QuotasConfig;
  /** Event-streaming clusters. */
  streaming: StreamingConfig;
}

/** Reads and checks the environment; throws `ConfigError` naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const http = httpConfig(env);
  const processSlice = processConfig(env);
  return {
    process: processSlice,
    http,
    platformKey: platformKeyConfig(env, processSlice),
    accounts: accountsConfig(env),
    mail: mailConfig(env, processSlice),
    oauth: oauthConfig(env),
    vpc: vpcConfig(env),
    integrations: integrationsConfig(env),
    jobs: jobsConfig(env, processSlice),
    workloads: workloadsConfig(env, processSlice),
    quotas: quotasConfig(env),
    streaming: streamingConfig(env),
  };
}
