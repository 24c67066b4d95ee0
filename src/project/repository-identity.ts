/**
 * Pure: what makes a repository the same repository in every checkout of it, on every machine. A project's key is
 * its repository's identity: the normalized URL of its `origin` remote when it has one (`git:github.com/acme/billing`),
 * else its root commit (`root:<sha>`), else the folder as before. The URL is read from the repository's own
 * configuration: host lower-cased, credentials and the port dropped, the `.git` suffix and trailing slashes
 * trimmed, so `git@github.com:Acme/Billing.git`, `ssh://git@github.com:22/acme/billing` and
 * `https://user:token@github.com/acme/billing/` are one key and a credential never reaches one. A remote that is a
 * path on this machine (a clone of a local folder) names no identity of its own: the locator follows it to the
 * repository it names (see project-locator.ts).
 */

/** How a repository key begins when it comes from a remote URL. */
export const REMOTE_KEY_PREFIX = 'git:'
/** How a repository key begins when it comes from the root commit. */
export const ROOT_KEY_PREFIX = 'root:'

/** What a remote URL says. */
export type RemoteTarget =
  | { readonly kind: 'network'; readonly key: string; readonly name: string }
  | { readonly kind: 'local'; readonly path: string }
  | { readonly kind: 'none' }

const SCP_LIKE = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/u
const URL_LIKE = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/\s]*@)?([^/:\s]+)(?::\d+)?(\/.*)?$/iu
const WINDOWS_PATH = /^[A-Za-z]:[\\/]/u

/**
 * Read a remote URL as git does: a network address (scp-like `user@host:path`, or `scheme://[user@]host[:port]/path`
 * for ssh, git, http and https), or a path on this machine (absolute, relative, `file://`).
 * @param url - the remote's URL as configured.
 * @returns its key and readable name, the local path, or none for an empty or unreadable URL.
 */
export function remoteTarget(url: string): RemoteTarget {
  const text = url.trim()
  if (text === '') return { kind: 'none' }
  if (text.startsWith('file://')) return { kind: 'local', path: decodeURIComponent(text.slice('file://'.length)) }
  if (text.startsWith('/') || text.startsWith('.') || text.startsWith('~') || WINDOWS_PATH.test(text))
    return { kind: 'local', path: text }
  const url_ = URL_LIKE.exec(text)
  if (url_ !== null) {
    const scheme = (url_[1] ?? '').toLowerCase()
    if (!['ssh', 'git', 'http', 'https', 'git+ssh', 'ssh+git'].includes(scheme)) return { kind: 'none' }
    return networkTarget(url_[2] ?? '', url_[3] ?? '')
  }
  const scp = SCP_LIKE.exec(text)
  if (scp !== null) return networkTarget(scp[1] ?? '', scp[2] ?? '')
  // A bare relative path ("../billing") is a path too.
  return { kind: 'local', path: text }
}

function networkTarget(host: string, path: string): RemoteTarget {
  const segments = path
    .replace(/\\/gu, '/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
  const last = segments.at(-1)
  if (host === '' || last === undefined) return { kind: 'none' }
  segments[segments.length - 1] = last.replace(/\.git$/iu, '')
  const cleaned = segments.filter((segment) => segment !== '')
  const name = cleaned.at(-1)
  if (name === undefined) return { kind: 'none' }
  return { kind: 'network', key: `${REMOTE_KEY_PREFIX}${[host, ...cleaned].join('/').toLowerCase()}`, name }
}

/**
 * The remotes a git configuration file names, each with its URL (the first `url` of its section).
 * @param config - the text of a repository's `config` file.
 * @returns remote name → URL.
 */
export function configuredRemotes(config: string): Map<string, string> {
  const remotes = new Map<string, string>()
  let current: string | undefined
  for (const raw of config.split(/\r?\n/u)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue
    const section = /^\[\s*remote\s+"((?:[^"\\]|\\.)*)"\s*\]$/iu.exec(line)
    if (section !== null) {
      current = (section[1] ?? '').replace(/\\(.)/gu, '$1')
      continue
    }
    if (line.startsWith('[')) {
      current = undefined
      continue
    }
    const entry = /^url\s*=\s*(.*)$/iu.exec(line)
    if (current !== undefined && entry !== null && !remotes.has(current)) remotes.set(current, unquote(entry[1] ?? ''))
  }
  return remotes
}

/**
 * The key of a repository identified by its root commit.
 * @param sha - a full commit id.
 * @returns the key, or undefined for something that is not a commit id.
 */
export function rootCommitKey(sha: string): string | undefined {
  const id = sha.trim().toLowerCase()
  return /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/u.test(id) ? `${ROOT_KEY_PREFIX}${id}` : undefined
}

/**
 * Whether a project key is a repository's identity rather than a folder on one machine.
 * @param key - a project key.
 * @returns true for a remote or root-commit key.
 */
export function isRepositoryKey(key: string): boolean {
  return key.startsWith(REMOTE_KEY_PREFIX) || key.startsWith(ROOT_KEY_PREFIX)
}

/**
 * Whether a project key is a folder on this machine (what versions before repository keys stored).
 * @param key - a project key.
 * @returns true for an absolute path.
 */
export function isFolderKey(key: string): boolean {
  return key.startsWith('/') || /^[A-Za-z]:\//u.test(key)
}

function unquote(value: string): string {
  const text = value.trim()
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2) return text.slice(1, -1).replace(/\\(.)/gu, '$1')
  // An unquoted value ends at a comment.
  return text.replace(/\s[#;].*$/u, '').trim()
}
