/**
 * Pure naming of the machine a conflict's side came from: which sides came from another device (their devices, as
 * the store records them, exclude this one) and the few words a line shows for it, "(from home desktop)". A side
 * this device stated itself stays unnamed, even when another machine said the same.
 */
import { clip } from '../text/clip.ts'

/** Longest device name shown in a line. */
const NAME_CHARS = 60

/** The devices whose statements of one row's value stand, as the store names them. */
export interface SideDevices {
  readonly factId: number
  readonly devices: readonly { readonly name: string; readonly self: boolean }[]
}

/**
 * The other machines each side came from.
 * @param sides - per row, the devices behind its value.
 * @returns per row that came only from other devices, their names (each once, in the store's order).
 */
export function otherMachines(sides: readonly SideDevices[]): Map<number, string[]> {
  const named = new Map<number, string[]>()
  for (const side of sides) {
    if (side.devices.length === 0 || side.devices.some((device) => device.self)) continue
    named.set(side.factId, [...new Set(side.devices.map((device) => device.name))])
  }
  return named
}

/**
 * Machine names as one phrase: `home desktop`, `home desktop and laptop`, `a, b and c`; each on one line and clipped.
 * @param names - device names.
 * @returns the phrase, '' for none.
 */
export function machinesPhrase(names: readonly string[]): string {
  const shown = names.map((name) => clip(name.replace(/\s+/gu, ' ').trim(), NAME_CHARS))
  if (shown.length <= 1) return shown[0] ?? ''
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1) ?? ''}`
}

/**
 * The note beside a side: ` (from home desktop)`, or '' when it came from this machine.
 * @param names - the other machines the side came from.
 * @returns the note, with its leading space.
 */
export function fromNote(names: readonly string[]): string {
  return names.length === 0 ? '' : ` (from ${machinesPhrase(names)})`
}
