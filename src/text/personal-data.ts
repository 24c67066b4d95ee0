/**
 * Pure scan for personal data in a text (email addresses, phone numbers, ID numbers), told apart from the developer
 * strings that share their shapes: a git SSH remote or scp target (`git@host:path`), the user@host of an ssh-family
 * command, a URL's user (`ssh://git@host`), a path or image before an `@` (`org/app@sha256:…`, `pkg/lib@v1.2.3`), a
 * version pin (`pkg@1.2.3-rc.beta`), a systemd template unit (`getty@tty1.service`), and numbers that a build, version,
 * ticket or order word names, or whose digits are a date. tests/fixtures/privacy-lookalikes.jsonl grades both sides.
 */
import type { Sensitivity } from '../types.ts'

/** What the scan found, with a short reason a person can read. */
export interface PersonalFinding {
  readonly sensitivity: Exclude<Sensitivity, 'credential'>
  readonly reason: string
}

const EMAIL = /[A-Za-z0-9._%+-]+@([A-Za-z0-9.-]+\.([A-Za-z]{2,}))(?![A-Za-z0-9])/gu
/** Commands whose `user@host` argument is a login, not an address. */
const LOGIN_COMMAND = /(?:^|[\s(`'"])(?:ssh|scp|sftp|rsync|mosh|autossh|ssh-copy-id)$/u
/** An argument between such a command and its `user@host`: an option, a number, or a path-like word. */
const COMMAND_ARGUMENT = /^(?:-\S*|\d+|\S*[./~]\S*)$/u
/** Top-level names that are systemd unit types, so `name@instance.service` is a unit. */
const UNIT_TYPES = new Set([
  'service',
  'socket',
  'timer',
  'target',
  'mount',
  'automount',
  'path',
  'slice',
  'scope',
  'device',
  'swap',
])

const CN_MOBILE = /(?<![A-Za-z\d_.-])(?:\+?86[\s-]?)?1[3-9]\d[\s-]?\d{4}[\s-]?\d{4}(?!\d)/gu
/** `+` and a country code, then groups of digits; a one-digit first group (`+33 1 42 68 53 00`) needs three more. */
const INTL_PHONE =
  /(?<![\w+])\+\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?(?:\d{2,4}(?:[\s.-]?\d{2,4}){1,4}|\d(?:[\s.-]?\d{2,4}){3,4})(?!\d)/gu
/** A Chinese landline: a trunk 0, a two- or three-digit area code, a dash, seven or eight digits. */
const CN_LANDLINE = /(?<![A-Za-z\d_.-])0\d{2,3}-\d{3,4}[\s-]?\d{4}(?![\d-])/gu
const NANP_PHONE = /(?<!\d)\(\d{3}\)\s?\d{3}[\s.-]\d{4}(?!\d)|(?<![A-Za-z\d_.-])\d{3}-\d{3}-\d{4}(?![\d-])/gu
const PHONE_PROPERTY = /(?:phone|mobile|cell|tel(?:ephone)?|whatsapp|电话|手机|联系方式)/iu
const US_SSN = /(?<![A-Za-z\d_-])\d{3}-\d{2}-\d{4}(?![\d-])/gu
const CN_ID = /(?<![\dA-Za-z])\d{17}[\dXx](?![\dA-Za-z])/gu
const ID_PROPERTY = /(?:passport|ssn|social security|national id|id (?:card )?number|身份证|护照|证件号)/iu
/** Words that name a number as an identifier of a build, version, ticket or order, just before it. */
const NUMBER_NAME =
  /(?:\b(?:build|builds|version|ver|release|rel|ticket|change|order|issue|pr|rev|revision|tag|run|job|batch|invoice|ref)|版本号?|构建号?|订单号?|工单号?|单号|批次号?|流水号)\s*(?:no\.?|number|#)?\s*[:：#]?\s*$/iu
/** First two digits of a Chinese resident ID: the province-level codes in use. */
const CN_PROVINCES = new Set([
  '11',
  '12',
  '13',
  '14',
  '15',
  '21',
  '22',
  '23',
  '31',
  '32',
  '33',
  '34',
  '35',
  '36',
  '37',
  '41',
  '42',
  '43',
  '44',
  '45',
  '46',
  '50',
  '51',
  '52',
  '53',
  '54',
  '61',
  '62',
  '63',
  '64',
  '65',
  '71',
  '81',
  '82',
  '83',
])

/**
 * Scan a text for personal data.
 * @param property - the fact's property ('' for none): a phone or ID property lets a plainer value count.
 * @param value - the text.
 * @param noun - what the text is, for the finding's reason.
 * @returns the first kind found (email, then ID number, then phone), or undefined.
 */
export function findPersonalData(property: string, value: string, noun: string): PersonalFinding | undefined {
  if (findEmail(value)) return { sensitivity: 'email', reason: `the ${noun} holds an email address` }
  for (const match of value.matchAll(CN_ID)) {
    if (isResidentId(match[0])) return { sensitivity: 'id_number', reason: `the ${noun} holds a resident ID number` }
  }
  if (
    anyMatch(US_SSN, value, (match) => !namedNumber(value, match.index)) ||
    (ID_PROPERTY.test(property) && /\d{5,}|[A-Z]\d{6,}/u.test(value))
  ) {
    return { sensitivity: 'id_number', reason: `the ${noun} holds an ID number` }
  }
  // A spaced mobile whose last eight digits read as a date is a number and a day, unless a phone word names it.
  const phone =
    anyMatch(
      CN_MOBILE,
      value,
      (match) =>
        !namedNumber(value, match.index) &&
        (!(/[\s-]\d{4}[\s-]?\d{4}$/u.test(match[0]) && endsInDate(match[0])) ||
          PHONE_PROPERTY.test(value.slice(Math.max(0, match.index - 8), match.index))),
    ) ||
    anyMatch(INTL_PHONE, value, () => true) ||
    anyMatch(CN_LANDLINE, value, (match) => !namedNumber(value, match.index)) ||
    anyMatch(NANP_PHONE, value, (match) => !namedNumber(value, match.index))
  if (phone || (PHONE_PROPERTY.test(property) && (value.match(/\d/gu)?.length ?? 0) >= 7)) {
    return { sensitivity: 'phone', reason: `the ${noun} holds a phone number` }
  }
  return undefined
}

/**
 * Whether 18 characters are a Chinese resident ID: a province code in use, a birth date that exists (1900–2099), and
 * the ISO 7064 check character.
 * @param id - 17 digits and a digit or X.
 * @returns true for a valid ID.
 */
export function isResidentId(id: string): boolean {
  if (!/^\d{17}[\dXx]$/u.test(id) || !CN_PROVINCES.has(id.slice(0, 2)) || !isDate(id.slice(6, 14))) return false
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
  let sum = 0
  for (let i = 0; i < 17; i += 1) sum += Number(id[i]) * (weights[i] ?? 0)
  return '10X98765432'[sum % 11] === id[17]?.toUpperCase()
}

/** Whether a text holds an email address that is not a login, remote, URL user, path, pin or unit. */
function findEmail(text: string): boolean {
  return anyMatch(EMAIL, text, (match) => {
    const start = match.index
    const end = start + match[0].length
    const before = text.slice(0, start)
    const domain = match[1] ?? ''
    if (text[end] === ':' && /[\w~/.]/u.test(text[end + 1] ?? '')) return false // git@host:org/repo.git, user@host:/srv, host:2222
    if (/(?::\/\/|\/)$/u.test(before)) return false // ssh://git@host, org/app@sha256:…, github.com/acme/lib@v1.2.3
    if (/^v?\d+\.\d+/u.test(domain)) return false // typescript@5.4.0-dev.build
    if (UNIT_TYPES.has((match[2] ?? '').toLowerCase())) return false // getty@tty1.service
    return !loginArgument(before)
  })
}

/** Whether the text just before an address ends with an ssh-family command and only its options and paths. */
function loginArgument(before: string): boolean {
  const clause = before.split(/[,;，。；！？\n]|\s(?:and|then|or)\s/u).at(-1) ?? ''
  const words = clause.trimEnd().split(/\s+/u)
  for (let i = words.length - 1; i >= 0; i -= 1) {
    const word = words[i] ?? ''
    if (LOGIN_COMMAND.test(` ${word}`)) return true
    if (!COMMAND_ARGUMENT.test(word)) return false
  }
  return false
}

/** Whether a word naming a build, version, ticket or order stands right before the number at `index`. */
function namedNumber(text: string, index: number): boolean {
  return NUMBER_NAME.test(text.slice(Math.max(0, index - 24), index)) || /[vV]$/u.test(text.slice(0, index))
}

/** Whether the last eight digits of a number are a date, YYYYMMDD (`188 2026 0301` is a build and a day). */
function endsInDate(number: string): boolean {
  return isDate(number.replace(/\D/gu, '').slice(-8))
}

function isDate(digits: string): boolean {
  const match = /^(19|20)(\d{2})(\d{2})(\d{2})$/u.exec(digits)
  if (match === null) return false
  const year = Number(`${match[1] ?? ''}${match[2] ?? ''}`)
  const month = Number(match[3])
  const day = Number(match[4])
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}

function anyMatch(pattern: RegExp, text: string, keep: (match: RegExpExecArray) => boolean): boolean {
  for (const match of text.matchAll(pattern)) if (keep(match)) return true
  return false
}
