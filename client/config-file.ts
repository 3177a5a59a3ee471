/**
 * The client's contexts, kept like kubectl's: `$XDG_CONFIG_HOME/cloudplane/config.json` (or
 * `~/.config/cloudplane/config.json`), each context a server and the credentials signed in there.
 * The file holds tokens, so it is written 0600 in a 0700 directory, through a rename so a reader
 * never sees half a file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A session from `login`: its access token is refreshed with the refresh token when it expires. */
export interface SessionCredentials {
  type: 'session';
  token: string;
  refresh_token: string;
  expires_at: string;
}

export interface ApiKeyCredentials {
  type: 'api_key';
  api_key: string;
}

export type Credentials = SessionCredentials | ApiKeyCredentials;

export interface Context {
  server: string;
  /** Who signed in, for `context list`. */
  user?: string;
  credentials?: Credentials;
}

export interface ClientConfig {
  current_context?: string;
  contexts: Record<string, Context>;
}

/** The directory of the client's files, `XDG_CONFIG_HOME` honoured. */
export function configDirectory(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'cloudplane');
}

export class ConfigFile {
  readonly path: string;

  constructor(readonly directory: string) {
    this.path = path.join(directory, 'config.json');
  }

  read(): ClientConfig {
    let text: string;
    try {
      text = fs.readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: {} };
      throw error;
    }
    const parsed = JSON.parse(text) as Partial<ClientConfig>;
    return { ...parsed, contexts: parsed.contexts ?? {} };
  }

  write(config: ClientConfig): void {
    fs.mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.directory, 0o700);
    const temporary = `${this.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(temporary, this.path);
  }

  /** Reads, changes and writes the file in one step. */
  update(change: (config: ClientConfig) => void): ClientConfig {
    const config = this.read();
    change(config);
    this.write(config);
    return config;
  }
}
