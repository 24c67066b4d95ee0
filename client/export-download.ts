/**
 * Exports as browser downloads: what an export says it wrote, in words, and handing the written file to the browser.
 * The file is fetched from GET /api/fact-memory/exports/<name>, the same bytes the export verb left in the data
 * directory's exports/, so what the user saves is what the plugin kept.
 */
import type { VerbAnswer } from './api.ts'

/** What the export verb answers (JSONL or Markdown). */
export type ExportAnswer = VerbAnswer<'export'>

/**
 * What an export wrote, in one sentence: "Exported 9 facts to exports/facts-….jsonl." or, for Markdown, "Wrote 9 facts
 * about 7 subjects to exports/library-….md (1 sensitive value withheld)."
 * @param data - the export verb's answer.
 * @returns the sentence.
 */
export function exportedWords(data: ExportAnswer): string {
  if (data.format !== 'markdown') return `Exported ${data.records} facts to ${data.relativePath}.`
  const { withheld } = data
  return (
    `Wrote ${data.facts} facts about ${data.subjects} subjects to ${data.relativePath}` +
    `${withheld > 0 ? ` (${withheld} sensitive ${withheld === 1 ? 'value' : 'values'} withheld)` : ''}.`
  )
}

/**
 * The download address of a file the export verb wrote.
 * @param relativePath - its path under the data directory, `exports/<name>`.
 * @returns the file's name and URL, or undefined for a path that is not a plain export file.
 */
export function exportDownload(relativePath: unknown): { readonly name: string; readonly url: string } | undefined {
  if (typeof relativePath !== 'string') return undefined
  const match = /^exports\/([^/\\]+)$/u.exec(relativePath)
  const name = match?.[1]
  return name === undefined ? undefined : { name, url: `/api/fact-memory/exports/${encodeURIComponent(name)}` }
}

/**
 * Hand an export file to the browser as a download (a same-origin link with `download`, clicked once).
 * @param root - where the link is placed for its click (a component's render root).
 * @param file - the file's name and URL.
 */
export function startDownload(root: Node, file: { readonly name: string; readonly url: string }): void {
  const link = document.createElement('a')
  link.href = file.url
  link.download = file.name
  link.hidden = true
  root.appendChild(link)
  link.click()
  link.remove()
}
