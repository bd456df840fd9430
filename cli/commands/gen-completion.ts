/**
 * `gen-completion <bash|zsh|fish>` (alias `completion`): a completion script for the shell, generated from the command
 * tree (commander has no generator of its own): subcommands and flags at each command path. zsh loads the bash script
 * through bashcompinit, as Pulumi's zsh script does.
 */
import type { Command } from 'commander';
import { UserError } from '../output/errors.js';
import { declareTree } from './lazy-tree.js';
import type { CommandHandler } from './types.js';

interface Node {
  /** `stack tag`, empty for the program. */
  path: string;
  subcommands: { name: string; description: string }[];
  flags: { long?: string; short?: string; description: string }[];
}

const isHidden = (c: Command) => (c as unknown as { _hidden?: boolean })._hidden === true;

/** Every command path with its visible subcommands and flags. */
function nodes(command: Command, path = '', into: Node[] = []): Node[] {
  const subs = command.commands.filter((c) => !isHidden(c));
  into.push({
    path,
    subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })),
    flags: [...command.options.filter((o) => !o.hidden), ...(command.options.some((o) => o.long === '--help') ? [] : [{ long: '--help', short: '-h', description: 'help for the command' }])].map((o) => ({
      long: o.long,
      short: o.short,
      description: o.description.replace(/ \(not supported by stackyard:.*$/, ''),
    })),
  });
  for (const sub of subs) nodes(sub, path ? `${path} ${sub.name()}` : sub.name(), into);
  return into;
}

const words = (node: Node) => [...node.subcommands.map((s) => s.name), ...node.flags.flatMap((f) => [f.long, f.short].filter((x): x is string => !!x))].join(' ');

/** The bash script: walk the words typed so far down the known command paths, then offer that path's words. */
function bash(tree: Node[]): string {
  const paths = tree.filter((n) => n.path !== '').map((n) => `" ${n.path}"`);
  const cases = tree.map((n) => `    "${n.path ? ` ${n.path}` : ''}") words="${words(n)}" ;;`);
  return `# bash completion for stackyard (stackyard gen-completion bash)
_stackyard() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word words i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    case "$path $word" in
      ${paths.join('|')}) path="$path $word" ;;
    esac
  done
  case "$path" in
${cases.join('\n')}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _stackyard stackyard
`;
}

const fishQuote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The fish script: the same walk in a function, then one `complete` line per subcommand and flag. */
function fish(tree: Node[]): string {
  const lines = [
    '# fish completion for stackyard (stackyard gen-completion fish)',
    'function __stackyard_path',
    '  set -l path stackyard',
    '  for word in (commandline -opc)[2..-1]',
    '    string match -q -- "-*" $word; and continue',
    `    contains -- "$path $word" ${tree.filter((n) => n.path !== '').map((n) => fishQuote(`stackyard ${n.path}`)).join(' ')}; and set path "$path $word"`,
    '  end',
    '  echo $path',
    'end',
    'function __stackyard_is',
    '  test (__stackyard_path) = $argv[1]',
    'end',
    'complete -c stackyard -f',
  ];
  for (const node of tree) {
    const at = `-n ${fishQuote(`__stackyard_is ${fishQuote(node.path ? `stackyard ${node.path}` : 'stackyard')}`)}`;
    for (const sub of node.subcommands) lines.push(`complete -c stackyard ${at} -a ${fishQuote(sub.name)} -d ${fishQuote(sub.description)}`);
    for (const flag of node.flags) {
      const names = [flag.long ? `-l ${flag.long.slice(2)}` : '', flag.short ? `-s ${flag.short.slice(1)}` : ''].filter(Boolean).join(' ');
      lines.push(`complete -c stackyard ${at} ${names} -d ${fishQuote(flag.description)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The handler, given the program whose tree it describes. */
export function genCompletion(program: Command): CommandHandler {
  return async (ctx, args) => {
    declareTree(program);
    const tree = nodes(program);
    switch (args[0]) {
      case 'bash':
        return ctx.out(bash(tree));
      case 'zsh':
        return ctx.out(`#compdef stackyard\nautoload -U +X bashcompinit && bashcompinit\n${bash(tree)}`);
      case 'fish':
        return ctx.out(fish(tree));
      default:
        throw new UserError(`"${args[0]}" is not a supported shell`, 'Pass bash, zsh or fish.');
    }
  };
}
