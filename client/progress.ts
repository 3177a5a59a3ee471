/**
 * Progress on stderr while the client waits: a spinner for one thing, a list of phases that tick
 * as they complete (a stack's execution). On a terminal they redraw in place; elsewhere (a pipe,
 * a CI log) each finished line is printed once and nothing spins.
 */
import type { Terminal } from './terminal.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 80;
const CLEAR_LINE = '\r\x1b[2K';

export interface Spinner {
  /** Changes the text beside the spinner. */
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
}

export function startSpinner(terminal: Terminal, text: string): Spinner {
  const { green, red } = terminal.errColors;
  if (!terminal.stderrIsTty) {
    return {
      update() {},
      succeed: (line) => terminal.err(`${green('✔')} ${line}\n`),
      fail: (line) => terminal.err(`${red('✖')} ${line}\n`),
    };
  }
  let current = text;
  let frame = 0;
  const draw = () => terminal.err(`${CLEAR_LINE}${FRAMES[frame++ % FRAMES.length]} ${current}`);
  draw();
  const timer = setInterval(draw, FRAME_MS);
  const stop = (line: string) => {
    clearInterval(timer);
    terminal.err(`${CLEAR_LINE}${line}\n`);
  };
  return {
    update(next) {
      current = next;
    },
    succeed: (line) => stop(`${green('✔')} ${line}`),
    fail: (line) => stop(`${red('✖')} ${line}`),
  };
}

export interface PhaseState {
  name: string;
  status: string;
}

export interface PhaseList {
  /** Shows the phases as they are now. */
  update(phases: readonly PhaseState[]): void;
  /** Draws the last state and stops redrawing. */
  stop(): void;
}

function symbolOf(status: string, frame: number, terminal: Terminal): string {
  const { green, red, dim, yellow } = terminal.errColors;
  switch (status) {
    case 'completed':
      return green('✔');
    case 'failed':
      return red('✖');
    case 'running':
      return yellow(FRAMES[frame % FRAMES.length]!);
    default:
      return dim('◻');
  }
}

/** A phase list like listr2's: one line per phase, redrawn in place on a terminal. */
export function startPhaseList(terminal: Terminal): PhaseList {
  let phases: readonly PhaseState[] = [];
  if (!terminal.stderrIsTty) {
    const printed = new Set<string>();
    return {
      update(next) {
        phases = next;
        for (const phase of next) {
          const key = `${phase.name} ${phase.status}`;
          if (printed.has(key) || (phase.status !== 'completed' && phase.status !== 'failed')) continue;
          printed.add(key);
          terminal.err(`${symbolOf(phase.status, 0, terminal)} ${phase.name}\n`);
        }
      },
      stop() {},
    };
  }
  let frame = 0;
  let drawnLines = 0;
  const draw = () => {
    const up = drawnLines > 0 ? `\x1b[${drawnLines}A` : '';
    const lines = phases.map(
      (phase) => `${CLEAR_LINE}${symbolOf(phase.status, frame, terminal)} ${phase.name}\n`,
    );
    terminal.err(`${up}${lines.join('')}`);
    drawnLines = phases.length;
    frame++;
  };
  const timer = setInterval(draw, FRAME_MS);
  return {
    update(next) {
      phases = next;
      draw();
    },
    stop() {
      clearInterval(timer);
      draw();
    },
  };
}
