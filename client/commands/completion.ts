/**
 * `completion bash|zsh|fish`: a completion script generated from the command tree itself, so it
 * never falls behind the commands. It completes command names and each command's flags.
 */
import { Argument, Command } from 'commander';
import { Invocation, withExamples, type ClientEnvironment } from '../invocation.js';

/** Each command's path (`vpc subnets`), with what may follow it: sub-commands, then flags. */
export function commandPaths(program: Command): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  const walk = (command: Command, path: string) => {
    const words = [
      ...command.commands.map((child) => child.name()),
      ...command.options.map((option) => option.long ?? option.short ?? '').filter(Boolean),
      '--help',
    ];
    paths.set(path, words);
    for (const child of command.commands) walk(child, path ? `${path} ${child.name()}` : child.name());
  };
  walk(program, '');
  return paths;
}

export function bashCompletion(program: Command): string {
  const paths = commandPaths(program);
  const cases = [...paths].map(([path, words]) => `    "${path}") words="${words.join(' ')}" ;;`).join('\n');
  const known = [...paths.keys()]
    .filter(Boolean)
    .map((path) => `"${path}"`)
    .join('|');
  return `# cloudplane completion for bash: source <(cloudplane completion bash)
_cloudplane() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next word words i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    next="\${path:+$path }$word"
    case "$next" in
      ${known || '""'}) path="$next" ;;
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _cloudplane cloudplane
`;
}

export function zshCompletion(program: Command): string {
  return `#compdef cloudplane
# cloudplane completion for zsh: source <(cloudplane completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(1).join('\n')}`;
}

export function fishCompletion(program: Command): string {
  const lines = [...commandPaths(program)].map(
    ([path, words]) =>
      `complete -c cloudplane -f -n 'test "(__cloudplane_path)" = "${path}"' -a '${words.join(' ')}'`,
  );
  return `# cloudplane completion for fish: cloudplane completion fish | source
function __cloudplane_path
  set -l path
  for word in (commandline -opc)[2..-1]
    string match -q -- '-*' $word; and continue
    set -l next (string join ' ' $path $word)
    contains -- $next ${[...commandPaths(program).keys()]
      .filter(Boolean)
      .map((path) => `'${path}'`)
      .join(' ')}; and set path $path $word
  end
  string join ' ' $path
end
${lines.join('\n')}
`;
}

const SCRIPTS = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion };

export function completionCommand(environment: ClientEnvironment, program: Command): Command {
  const command = new Command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>').choices(Object.keys(SCRIPTS)))
    .action((shell: keyof typeof SCRIPTS, _flags: object, cmd: Command) => {
      Invocation.of(cmd, environment).terminal.out(SCRIPTS[shell](program));
    });
  return withExamples(command, [
    'cloudplane completion bash > /etc/bash_completion.d/cloudplane',
    'source <(cloudplane completion bash)',
    'cloudplane completion zsh > "${fpath[1]}/_cloudplane"',
    'cloudplane completion fish | source',
  ]);
}
