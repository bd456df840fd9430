/**
 * Who must approve what: a stack's own requirement wins over its organization's rules; among the rules that match
 * the stack (its `project/stack` against the glob, its tags against `k=v`), the largest requirement counts.
 */
import { InvalidInputError } from '../errors.js';
import type { ApprovalRule } from '../../ports/approval-store.js';

/** The most approvals a stack or rule may require. */
export const MAX_REQUIRED = 10;
/** Glob characters: names' own (`[A-Za-z0-9._-]`), the `/` between project and stack, and `*`, `?`. */
const GLOB = /^[A-Za-z0-9._*?/-]{1,200}$/;
const TAG = /^([^=\s][^=]{0,119})=(.{0,256})$/s;

/** The effective requirement of one stack, and where it comes from (the GET …/approvals answer). */
export interface EffectiveRequirement {
  required: number;
  source: 'stack' | 'organization' | 'none';
  rule?: Pick<ApprovalRule, 'stacks' | 'tag'>;
}

/** What a rule is matched against: the stack's names and tags. */
export interface RuleSubject {
  project: string;
  stack: string;
  tags?: Record<string, string>;
}

/** An integer 0..MAX_REQUIRED, else a 400 saying so. */
export function validateRequired(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_REQUIRED) {
    throw new InvalidInputError(`required must be a whole number from 0 to ${MAX_REQUIRED} (0 turns the requirement off).`);
  }
  return value;
}

/** A rule as stored: `required` checked, the glob and tag checked and only present when given. */
export function validateRule(rule: { required: unknown; stacks?: unknown; tag?: unknown }): ApprovalRule {
  const required = validateRequired(rule.required);
  const checked: ApprovalRule = { required };
  if (rule.stacks !== undefined && rule.stacks !== null && rule.stacks !== '') {
    if (typeof rule.stacks !== 'string' || !GLOB.test(rule.stacks)) {
      throw new InvalidInputError(
        "stacks must be a glob over 'project/stack' of letters, digits, '.', '_', '-', '/', '*' and '?' (e.g. 'web/prod*' or '*/production').",
      );
    }
    checked.stacks = rule.stacks;
  }
  if (rule.tag !== undefined && rule.tag !== null && rule.tag !== '') {
    if (typeof rule.tag !== 'string' || !TAG.test(rule.tag)) {
      throw new InvalidInputError("tag must be 'key=value' (e.g. 'env=production').");
    }
    checked.tag = rule.tag;
  }
  return checked;
}

/**
 * Whether `name` (`project/stack`) matches `glob`: `*` is any run of characters within one segment, `**` any run
 * across segments, `?` one character other than `/`; everything else matches itself.
 */
export function globMatches(glob: string, name: string): boolean {
  let pattern = '^';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*' && glob[i + 1] === '*') {
      pattern += '.*';
      i++;
    } else if (char === '*') pattern += '[^/]*';
    else if (char === '?') pattern += '[^/]';
    else pattern += char.replace(/[.\\^$+()[\]{}|-]/g, '\\$&');
  }
  return new RegExp(`${pattern}$`).test(name);
}

/** Whether a rule applies to the stack: every condition it has holds (a rule without conditions covers every stack). */
export function ruleMatches(rule: ApprovalRule, subject: RuleSubject): boolean {
  if (rule.stacks !== undefined && !globMatches(rule.stacks, `${subject.project}/${subject.stack}`)) return false;
  if (rule.tag !== undefined) {
    const at = rule.tag.indexOf('=');
    const key = rule.tag.slice(0, at);
    if (subject.tags?.[key] !== rule.tag.slice(at + 1)) return false;
  }
  return true;
}

/** The stack's own setting when it has one (above 0), else the largest matching rule, else none. */
export function effectiveRequirement(subject: RuleSubject, own: number | undefined, rules: readonly ApprovalRule[]): EffectiveRequirement {
  if (own !== undefined && own > 0) return { required: own, source: 'stack' };
  let best: ApprovalRule | undefined;
  for (const rule of rules) if (rule.required > 0 && ruleMatches(rule, subject) && (!best || rule.required > best.required)) best = rule;
  if (!best) return { required: 0, source: 'none' };
  const rule = { ...(best.stacks !== undefined ? { stacks: best.stacks } : {}), ...(best.tag !== undefined ? { tag: best.tag } : {}) };
  return { required: best.required, source: 'organization', rule };
}
