/** A cache of disposable values keyed by value, counting users: the last release disposes the value. */
export class RefCache<V> {
  readonly #entries = new Map<string, { readonly value: V; refs: number }>()
  readonly #dispose: (value: V) => void

  constructor(dispose: (value: V) => void) {
    this.#dispose = dispose
  }

  get size(): number {
    return this.#entries.size
  }

  acquire(key: string, create: () => V): V {
    const entry = this.#entries.get(key) ?? { value: create(), refs: 0 }
    entry.refs++
    this.#entries.set(key, entry)
    return entry.value
  }

  peek(key: string): V | undefined {
    return this.#entries.get(key)?.value
  }

  release(key: string): void {
    const entry = this.#entries.get(key)
    if (entry === undefined) return
    entry.refs--
    if (entry.refs > 0) return
    this.#entries.delete(key)
    this.#dispose(entry.value)
  }

  entries(): [string, V][] {
    return [...this.#entries].map(([key, entry]) => [key, entry.value])
  }

  clear(): void {
    for (const entry of this.#entries.values()) this.#dispose(entry.value)
    this.#entries.clear()
  }
}
