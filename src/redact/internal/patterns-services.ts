import type { PatternRule } from '../types.ts'
import { hasValidTokenChecksum, isPlaceholder, looksRandom, randomAfter } from './validators.ts'

/**
 * Tokens of code hosts, package registries and CI services: what a coding agent handles (a GitHub
 * tool, a publish step, a pipeline trigger). Prefixed formats; each validator strips the prefix and
 * asks the rest to look random, or checks the format's own checksum.
 */

/**
 * GitHub and npm tokens end with a CRC-32 of their random part. A valid checksum proves the format. A
 * wrong one does not prove a look-alike, though: a real token with one character mistyped, or cut by a
 * log line, is still worth hiding. So a bad checksum falls back to the randomness test, which hand-made
 * look-alikes (`ghp_xxxx…`, `ghp_1234567890abcdef…`, `npm_your_token_here…`) fail.
 */
function checksummed(prefix: RegExp): (secret: string) => boolean {
  const random = randomAfter(prefix, { minLength: 30 })
  return (secret) => hasValidTokenChecksum(secret) || random(secret)
}

export const SERVICE_PATTERNS: readonly PatternRule[] = [
  {
    id: 'github-token',
    hint: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/,
    validate: checksummed(/^gh[pousr]_/),
  },
  {
    id: 'github-pat',
    hint: 'github_pat_',
    // Fine-grained tokens: `github_pat_`, 22 characters, `_`, 59 characters.
    pattern: /\bgithub_pat_[A-Za-z0-9_]{40,255}/,
    validate: randomAfter(/^github_pat_/),
  },
  {
    id: 'gitlab-token',
    hint: [
      'glpat-',
      'gldt-',
      'glrt-',
      'glcbt-',
      'glptt-',
      'glft-',
      'glimt-',
      'glagent-',
      'gloas-',
      'glsoat-',
      'glffct-',
      'GR1348941',
    ],
    // Personal, deploy, runner, CI job, trigger, feed, incoming-mail, agent, OAuth-secret, SCIM and
    // feature-flag tokens, and runner registration tokens. Routable tokens end `.01.xxxxxxxxx`.
    pattern:
      /\b(?:gl(?:pat|dt|rt|cbt|ptt|ft|imt|agent|oas|soat|ffct)-|GR1348941)[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{2}\.[0-9a-z]{9})?/,
    validate: randomAfter(/^(?:gl[a-z]+-|GR1348941)/),
  },
  {
    id: 'bitbucket-token',
    hint: ['ATBB', 'ATATT', 'ATCTT'],
    // Bitbucket app passwords (`ATBB`) and Atlassian API tokens (`ATATT3`, `ATCTT3`).
    pattern: /\b(?:ATBB[A-Za-z0-9_=.-]{28,}|AT[AC]TT3[A-Za-z0-9_=.-]{100,})/,
    validate: randomAfter(/^(?:ATBB|AT[AC]TT3)/),
  },
  {
    id: 'npm-token',
    hint: 'npm_',
    pattern: /\bnpm_[A-Za-z0-9]{36}\b/,
    validate: checksummed(/^npm_/),
  },
  {
    id: 'pypi-token',
    hint: 'pypi-',
    // A macaroon whose base64 always begins with the encoded `pypi.org` location.
    pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/,
    validate: randomAfter(/^pypi-AgEIcHlwaS5vcmc/),
  },
  {
    id: 'rubygems-key',
    hint: 'rubygems_',
    pattern: /\brubygems_[a-f0-9]{48}\b/,
    validate: randomAfter(/^rubygems_/),
  },
  { id: 'nuget-key', hint: 'oy2', pattern: /\boy2[a-z0-9]{43}\b/, validate: randomAfter(/^oy2/) },
  { id: 'crates-io-token', hint: 'cio', pattern: /\bcio[A-Za-z0-9]{32}\b/, validate: randomAfter(/^cio/) },
  {
    id: 'clojars-token',
    hint: 'CLOJARS_',
    pattern: /\bCLOJARS_[a-z0-9]{60}\b/,
    validate: randomAfter(/^CLOJARS_/),
  },
  {
    id: 'docker-hub-token',
    hint: 'dckr_',
    // Personal (`dckr_pat_`) and organization (`dckr_oat_`) access tokens.
    pattern: /\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}/,
    validate: randomAfter(/^dckr_(?:pat|oat)_/),
  },
  {
    id: 'jfrog-token',
    hint: ['AKCp', 'cmVmdGtuOjAxOj'],
    // API keys (`AKCp`) and reference tokens (base64 of `reftkn:01:`).
    pattern: /\b(?:AKCp[A-Za-z0-9]{69}|cmVmdGtuOjAxOj[A-Za-z0-9]{40,})\b/,
    validate: randomAfter(/^(?:AKCp|cmVmdGtuOjAxOj)/),
  },
  { id: 'buildkite-token', hint: 'bkua_', pattern: /\bbkua_[a-f0-9]{40}\b/, validate: randomAfter(/^bkua_/) },
  {
    id: 'circleci-token',
    hint: 'CCIPAT_',
    pattern: /\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b/,
    validate: randomAfter(/^CCIPAT_/),
  },
  {
    id: 'sonarqube-token',
    hint: 'sq',
    pattern: /\bsq[apu]_[a-f0-9]{40}\b/,
    validate: randomAfter(/^sq[apu]_/),
  },
  {
    id: 'terraform-cloud-token',
    hint: '.atlasv1.',
    pattern: /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}/,
    validate: (s) => !isPlaceholder(s) && looksRandom(s.slice(s.lastIndexOf('.') + 1)),
  },
  { id: 'pulumi-token', hint: 'pul-', pattern: /\bpul-[a-f0-9]{40}\b/, validate: randomAfter(/^pul-/) },
  {
    id: 'postman-key',
    hint: 'PMAK-',
    pattern: /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/,
    validate: randomAfter(/^PMAK-/),
  },
  {
    id: 'linear-key',
    hint: 'lin_api_',
    pattern: /\blin_api_[A-Za-z0-9]{40}\b/,
    validate: randomAfter(/^lin_api_/),
  },
  {
    id: 'sentry-token',
    hint: 'sntry',
    // User (`sntryu_`) and organization (`sntrys_`, base64 JSON then a secret) auth tokens.
    pattern: /\bsntry[su]_[A-Za-z0-9_=+/]{40,}/,
    validate: randomAfter(/^sntry[su]_(?:eyJ)?/),
  },
]
