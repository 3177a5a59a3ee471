/**
 * The client's terminal: where output goes, whether it is a terminal (tables, spinners and
 * colour only there), colour unless `NO_COLOR`, and hidden prompts for passwords.
 */
import readline from 'node:readline';

export interface Terminal {
  /** Writes to stdout. */
  out(text: string): void;
  /** Writes to stderr: progress, prompts, errors. */
  err(text: string): void;
  readonly stdoutIsTty: boolean;
  readonly stderrIsTty: boolean;
  readonly stdinIsTty: boolean;
  /** Colours for stdout. */
  readonly colors: Colors;
  /** Colours for stderr, where progress goes. */
  readonly errColors: Colors;
  /** Asks on stderr and reads a line from stdin; `hidden` echoes nothing (passwords, codes). */
  prompt(question: string, options?: { hidden?: boolean }): Promise<string>;
  /** All of stdin, for `--password-stdin` and the like. */
  readStdin(): Promise<string>;
}

export interface Colors {
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  magenta(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const ansi =
  (open: number, close: number) =>
  (text: string): string =>
    `\x1b[${open}m${text}\x1b[${close}m`;

const COLORED: Colors = {
  green: ansi(32, 39),
  yellow: ansi(33, 39),
  red: ansi(31, 39),
  magenta: ansi(35, 39),
  dim: ansi(2, 22),
  bold: ansi(1, 22),
};

const identity = (text: string): string => text;
const PLAIN: Colors = {
  green: identity,
  yellow: identity,
  red: identity,
  magenta: identity,
  dim: identity,
  bold: identity,
};

/** Colour only on a terminal, and never with `NO_COLOR` set (https://no-color.org). */
export function colorsFor(isTty: boolean, env: NodeJS.ProcessEnv): Colors {
  return isTty && !env.NO_COLOR ? COLORED : PLAIN;
}

function readLine(question: string, hidden: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    if (hidden) {
      // Echo nothing of what is typed; the question itself is written before muting.
      const output = rl as unknown as { _writeToOutput: (text: string) => void };
      output._writeToOutput = (text: string) => {
        if (text.includes('\n') || text.includes('\r')) process.stderr.write('\n');
      };
    }
    process.stderr.write(question);
    rl.once('line', (line) => {
      rl.close();
      resolve(line);
    });
    rl.once('SIGINT', () => {
      rl.close();
      reject(new Error('interrupted'));
    });
  });
}

/** The process's terminal. */
export function processTerminal(env: NodeJS.ProcessEnv): Terminal {
  const stdoutIsTty = process.stdout.isTTY === true;
  const stderrIsTty = process.stderr.isTTY === true;
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    stdoutIsTty,
    stderrIsTty,
    stdinIsTty: process.stdin.isTTY === true,
    colors: colorsFor(stdoutIsTty, env),
    errColors: colorsFor(stderrIsTty, env),
    prompt: (question, options = {}) => readLine(question, options.hidden === true),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
