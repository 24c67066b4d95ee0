// Proves scanPrivacy tells credentials and personal data (email, phone, ID numbers) from ordinary identifiers and prose
// (graded on the look-alike set: SSH remotes, ssh logins, npm scopes, image digests, version pins, dates and versions
// shaped like phone or ID numbers), and maskCredentials masks the same credentials inside free text.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MASK, maskCredentials, scanPrivacy } from '../src/text/privacy.ts'
import { LOOKALIKES, lookalikeFigures, redTeamFigures } from './helpers/privacy-set.ts'
import { RED_TEAM } from './helpers/red-team.ts'

/** A checksum-valid 18-character Chinese resident ID built from its first 17 digits. */
function residentId(first17: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
  let sum = 0
  for (let i = 0; i < 17; i += 1) sum += Number(first17[i]) * (weights[i] ?? 0)
  return `${first17}${'10X98765432'[sum % 11] ?? ''}`
}

function sensitivityOf(property: string, value: string): string | null {
  return scanPrivacy(property, value)?.sensitivity ?? null
}

describe('scanPrivacy: credentials', () => {
  it('detects an sk- API secret key, bare or inside a sentence', () => {
    assert.equal(sensitivityOf('api key', 'sk-abcdefghijklmnop1234'), 'credential')
    assert.equal(sensitivityOf('note', 'my key is sk-proj-AbCdEf0123456789xyz'), 'credential')
    assert.match(scanPrivacy('note', 'sk-abcdefghijklmnop1234')?.reason ?? '', /API secret key/u)
  })

  it('detects a GitHub ghp_ token', () => {
    assert.equal(sensitivityOf('token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'), 'credential')
    assert.match(scanPrivacy('x', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789')?.reason ?? '', /GitHub token/u)
  })

  it('detects an AWS AKIA access key id', () => {
    assert.equal(sensitivityOf('aws', 'AKIAIOSFODNN7EXAMPLE'), 'credential')
    assert.match(scanPrivacy('aws', 'AKIAIOSFODNN7EXAMPLE')?.reason ?? '', /AWS access key/u)
  })

  it('detects a JSON web token', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'
    assert.equal(sensitivityOf('session', jwt), 'credential')
    assert.match(scanPrivacy('session', jwt)?.reason ?? '', /JSON web token/u)
  })

  it('detects an English password assignment such as "password: hunter22x"', () => {
    assert.equal(sensitivityOf('login', 'password: hunter22x'), 'credential')
    assert.equal(sensitivityOf('note', 'Password=hunter22x'), 'credential')
    assert.equal(sensitivityOf('note', 'api_key=abcd1234'), 'credential')
  })

  it('detects a Chinese password assignment such as "数据库密码：abc12345" in the value', () => {
    assert.equal(sensitivityOf('note', '数据库密码：abc12345'), 'credential')
    assert.equal(sensitivityOf('note', '密码: hunter22x'), 'credential')
    assert.equal(sensitivityOf('note', '口令=abcd1234'), 'credential')
  })

  it('treats a secret-looking value of a property named "api key" as a credential', () => {
    assert.equal(sensitivityOf('api key', 'Zx9Qw7Er'), 'credential')
    assert.match(scanPrivacy('api key', 'Zx9Qw7Er')?.reason ?? '', /"api key" names a secret/u)
  })

  it('treats a secret-looking value of a property named 密码 as a credential', () => {
    assert.equal(sensitivityOf('数据库密码', 'hunter22x'), 'credential')
  })

  it('detects a URL with an embedded user:password', () => {
    assert.equal(sensitivityOf('db', 'postgres://admin:s3cret@db.example.com:5432/app'), 'credential')
  })

  it('detects a PEM private key header', () => {
    assert.equal(sensitivityOf('key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow...'), 'credential')
    assert.equal(sensitivityOf('key', '-----BEGIN PRIVATE KEY-----'), 'credential')
  })

  it('detects a Luhn-valid card number with spaces, dashes or none', () => {
    assert.equal(sensitivityOf('card', '4111 1111 1111 1111'), 'credential')
    assert.equal(sensitivityOf('card', '4111-1111-1111-1111'), 'credential')
    assert.equal(sensitivityOf('note', 'order paid with 4111111111111111'), 'credential')
    assert.match(scanPrivacy('card', '4111 1111 1111 1111')?.reason ?? '', /payment card/u)
  })

  it('does not treat a Luhn-invalid 16-digit number as a card', () => {
    assert.equal(sensitivityOf('note', 'build 1234-5678-9012-3456'), null)
  })

  it('detects a password, token or key that a sentence names and gives: "the staging db password is Tr0ub4dor&3"', () => {
    assert.equal(sensitivityOf('note', 'the staging db password is Tr0ub4dor&3'), 'credential')
    assert.equal(sensitivityOf('note', 'The deploy token was `Qx7-rotating-2026`.'), 'credential')
    assert.equal(sensitivityOf('备注', '生产库的密码是Xy9kP2mQ7，别外传'), 'credential')
    assert.match(scanPrivacy('note', 'our api key is Zx9Qw7Er')?.reason ?? '', /names a password or key/u)
  })

  it('detects a long random mixed-case token', () => {
    assert.equal(sensitivityOf('note', 'aZ3kQ9mX2pL7vB4nR8tY1wE6'), 'credential')
    assert.match(scanPrivacy('note', 'aZ3kQ9mX2pL7vB4nR8tY1wE6')?.reason ?? '', /random-looking token/u)
  })
})

describe('scanPrivacy: not credentials', () => {
  it('leaves a 40-character git commit sha alone', () => {
    assert.equal(sensitivityOf('commit', '3f786850e387550fdab836ed7e6dc881de23001b'), null)
    assert.equal(sensitivityOf('note', 'deployed commit 3f786850e387550fdab836ed7e6dc881de23001b today'), null)
  })

  it('leaves a 64-hex SHA-256 digest alone', () => {
    assert.equal(sensitivityOf('sha256', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'), null)
  })

  it('leaves plain English and Chinese sentences alone', () => {
    assert.equal(sensitivityOf('note', 'The deploy runs every Friday afternoon.'), null)
    assert.equal(sensitivityOf('备注', '每周五下午部署一次'), null)
  })

  it('leaves a "password policy" of "rotate every 90 days" alone', () => {
    assert.equal(sensitivityOf('password policy', 'rotate every 90 days'), null)
    assert.equal(sensitivityOf('note', 'password policy: rotate every 90 days'), null)
  })

  it('leaves a sentence alone when the word after its named secret is plain prose', () => {
    assert.equal(sensitivityOf('note', 'the password is required for every deploy'), null)
    assert.equal(sensitivityOf('note', 'the api key is in the vault'), null)
    assert.equal(sensitivityOf('note', 'the token is valid for 30 days.'), null)
    assert.equal(sensitivityOf('note', 'the token was rotated.'), null)
    assert.equal(sensitivityOf('备注', '密码是每季度更换一次'), null)
  })

  it('leaves a plain word under a secret-named property alone', () => {
    assert.equal(sensitivityOf('secret', 'Tuesday'), null)
    assert.equal(sensitivityOf('token', 'abc'), null)
  })

  it('leaves a number, size, duration, date or plain word under a secret-named property alone: "token limit: 128000"', () => {
    for (const [property, value] of [
      ['token limit', '128000'],
      ['max tokens', '1,000,000'],
      ['context tokens', '4k'],
      ['token budget', '128k'],
      ['key size', '4096bits'],
      ['token ttl', '30 days'],
      ['token ttl', '3600s'],
      ['token lifetime', '90days'],
      ['token expiry', '2026-03-01'],
      ['secret rotation', 'none'],
      ['api key auth', 'enabled'],
      ['token cache', '512MB'],
      ['password min length', '128000'],
      ['token expiry', '1767225600000'],
      ['token mode', 'per-session'],
      ['token mode', 'ENABLED'],
      ['api key source', 'FROM_ENV'],
    ] as const)
      assert.equal(sensitivityOf(property, value), null, `${property} · ${value}`)
  })

  it('still treats a secret-shaped value under a secret-named property as a credential', () => {
    for (const [property, value] of [
      ['password', 'Tr0ub4dor&3'],
      ['api key', '7f9c2ba4e88f827d616045507605853e'],
      ['token', 'a1B2c3D4e5'],
      ['secret', 'x9!kQ#2m'],
      ['password', '12345678'],
      ['staging db password', '20250301'],
      ['admin password', '12345678'],
      ['passphrase', 'correct-horse-battery'],
      ['access key', '4096bitsX9q'],
      ['token', '4829105738291047582910'],
    ] as const)
      assert.equal(sensitivityOf(property, value), 'credential', `${property} · ${value}`)
    assert.equal(sensitivityOf('note', 'the password is 12345678'), 'credential')
  })

  it('still finds every secret and every piece of personal data in the red-team corpus', () => {
    const privateLines = RED_TEAM.filter((entry) => /secret key|password|token|personal data/u.test(entry.why))
    assert.equal(privateLines.length, 5)
    for (const entry of privateLines) assert.notEqual(scanPrivacy('', entry.text), undefined, entry.text)
  })

  it('leaves ports, versions, host:port, dates and UUIDs alone', () => {
    assert.equal(sensitivityOf('port', '7801'), null)
    assert.equal(sensitivityOf('version', 'v1.2.3'), null)
    assert.equal(sensitivityOf('version', '1.2.3.4'), null)
    assert.equal(sensitivityOf('address', 'localhost:7801'), null)
    assert.equal(sensitivityOf('release date', '2026-03-01'), null)
    assert.equal(sensitivityOf('request id', '123e4567-e89b-12d3-a456-426614174000'), null)
  })
})

describe('scanPrivacy: personal data', () => {
  it('classifies an email address as email', () => {
    assert.equal(sensitivityOf('contact', 'alice@example.com'), 'email')
    assert.equal(sensitivityOf('联系方式', '邮箱 bob@example.co.uk'), 'email')
  })

  it('classifies a Chinese mobile number as phone', () => {
    assert.equal(sensitivityOf('contact', '13812345678'), 'phone')
    assert.equal(sensitivityOf('note', '手机 138-1234-5678'), 'phone')
  })

  it('classifies a Chinese mobile number with the +86 country code as phone, not as a card number', () => {
    // The 13 digits 8613812345678 happen to pass the Luhn check.
    assert.equal(sensitivityOf('contact', '+86 138 1234 5678'), 'phone')
    assert.equal(sensitivityOf('手机', '+8613812345678'), 'phone')
  })

  it('classifies an international number such as +44 20 7946 0958 as phone', () => {
    assert.equal(sensitivityOf('contact', '+44 20 7946 0958'), 'phone')
  })

  it('classifies a US number in (555) 123-4567 form as phone', () => {
    assert.equal(sensitivityOf('note', 'call me at (555) 123-4567'), 'phone')
  })

  it('classifies a checksum-valid Chinese resident ID as id_number', () => {
    const id = residentId('11010519491231002')
    assert.equal(id, '11010519491231002X')
    assert.equal(sensitivityOf('身份证', id), 'id_number')
    assert.equal(sensitivityOf('note', `他的号码 ${residentId('44030419900307123')}`), 'id_number')
  })

  it('does not treat an 18-digit number with a wrong check digit as an ID', () => {
    assert.equal(sensitivityOf('note', '110105194912310020'), null)
    assert.equal(sensitivityOf('note', '110105194912310021'), null)
  })

  it('classifies a US SSN such as 123-45-6789 as id_number', () => {
    assert.equal(sensitivityOf('ssn', '123-45-6789'), 'id_number')
    assert.equal(sensitivityOf('note', 'SSN 123-45-6789'), 'id_number')
  })

  it('prefers a credential over personal data when a value carries both', () => {
    assert.equal(sensitivityOf('note', 'alice@example.com sk-abcdefghijklmnop1234'), 'credential')
  })
})

describe('scanPrivacy: the graded look-alike set', () => {
  it('leaves a git SSH remote alone: billing-api · repo · git@example.com:acme/billing-api.git is not an email', () => {
    assert.equal(sensitivityOf('repo', 'git@example.com:acme/billing-api.git'), null)
    assert.equal(
      sensitivityOf('note', 'the repo is git@example.com:acme/billing-api.git, mail alice@example.com'),
      'email',
    )
  })

  it('covers every personal-data kind and every look-alike kind in English and Chinese, at every grade', () => {
    const kinds = new Set(LOOKALIKES.map((entry) => entry.kind))
    for (const kind of kinds) {
      assert.deepEqual(
        new Set(LOOKALIKES.filter((entry) => entry.kind === kind).map((entry) => entry.lang)),
        new Set(['en', 'zh']),
        kind,
      )
    }
    for (const kind of [
      'email',
      'phone',
      'id_number',
      'ssh-remote',
      'ssh-login',
      'npm-scope',
      'version-pin',
      'docker-digest',
      'date-number',
    ])
      assert.ok(kinds.has(kind), kind)
    assert.deepEqual(new Set(LOOKALIKES.map((entry) => entry.grade)), new Set([1, 2, 3]))
  })

  it('keeps every piece of personal data caught and flags no look-alike: precision and recall 1 at every grade and in both languages', () => {
    for (const [slice, figures] of Object.entries(lookalikeFigures())) {
      assert.deepEqual(figures.misses, [], slice)
      assert.deepEqual([figures.precision, figures.recall], [1, 1], slice)
    }
  })

  it('keeps precision and recall 1 on the red-team corpus: its five private lines flagged, no other line', () => {
    const figures = redTeamFigures()
    assert.deepEqual(
      [figures.truePositives, figures.falsePositives, figures.falseNegatives],
      [5, 0, 0],
      figures.misses.join('\n'),
    )
  })

  it('still calls a spaced mobile whose digits read as a date a phone when a phone word names it, and an 18-digit order number no ID', () => {
    assert.equal(sensitivityOf('备注', '他手机 150 2012 0815'), 'phone')
    assert.equal(sensitivityOf('build', 'build 150 2012 0815'), null)
    assert.equal(
      sensitivityOf('note', 'id 310115200111204567'),
      'id_number',
      'a resident ID that passes Luhn is personal data, not a card',
    )
  })
})

describe('maskCredentials: credentials inside free text', () => {
  it("masks every credential the scan detects, keeping the name of an assignment, a bearer and a URL's user", () => {
    const text = [
      'USER: deploy with sk-proj-AbCdEf0123456789xyz and ghp_abcdefghijklmnopqrstuvwxyz0123456789 please',
      'the db password: hunter22x, 数据库密码：abc12345',
      'curl -H "Authorization: Bearer abcdefghijklmnop0123456789" https://deploy:s3cretpass@db.example.com/x',
      'card 4111 1111 1111 1111, session 9fQ2xLp7Rt4vWz8KmN3bYc6Hd1Js',
    ].join('\n')
    const masked = maskCredentials(text)
    for (const secret of [
      'sk-proj-AbCdEf',
      'ghp_abc',
      'hunter22x',
      'abc12345',
      'abcdefghijklmnop0123456789',
      's3cretpass',
      '4111 1111',
      '9fQ2xLp7Rt4vWz8KmN3bYc6Hd1Js',
    ]) {
      assert.equal(masked.includes(secret), false, secret)
    }
    assert.match(masked, new RegExp(`password: ${MASK}`, 'u'))
    assert.match(masked, new RegExp(`数据库密码：${MASK}`, 'u'))
    assert.match(masked, new RegExp(`Bearer ${MASK}`, 'u'))
    assert.match(masked, new RegExp(`https://deploy:${MASK}@db\\.example\\.com/x`, 'u'))
    assert.equal(maskCredentials(masked), masked, 'masking masked text changes nothing')
  })

  it('masks a whole private key block, not just its header', () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1x/2+abc\nq9Zr/8+Yt==\n-----END RSA PRIVATE KEY-----'
    assert.equal(maskCredentials(`key:\n${key}\nend`), `key:\n${MASK}\nend`)
  })

  it('masks a secret a sentence names and gives, keeping the sentence and its punctuation', () => {
    assert.equal(maskCredentials('the staging db password is Tr0ub4dor&3.'), `the staging db password is ${MASK}.`)
    assert.equal(maskCredentials('生产库的密码是Xy9kP2mQ7，别外传'), `生产库的密码是${MASK}，别外传`)
    assert.equal(maskCredentials('the token was rotated.'), 'the token was rotated.')
  })

  it('masks each known credential value wherever it occurs, even one no pattern catches', () => {
    assert.equal(
      maskCredentials('staging logs in with Tr0ub4dor, yes Tr0ub4dor', ['Tr0ub4dor']),
      `staging logs in with ${MASK}, yes ${MASK}`,
    )
  })

  it('leaves ordinary text alone: digests, ports, versions, paths, dates and prose', () => {
    const text =
      'commit 3f786850e387550fdab836ed7e6dc881de23001b on port 7801, v1.2.3 at /var/cache/build since 2026-03-01; 支付服务的端口是七千八百零一号'
    assert.equal(maskCredentials(text), text)
  })
})
