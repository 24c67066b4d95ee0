/** zod schemas for the small JSON files of a sync folder: the folder's marker and a device's description. */
import { z } from 'zod'

/** The marker file at a sync folder's root. */
export const folderMarkerSchema = z.strictObject({
  format: z.literal('dsh-fact-memory.sync-folder'),
  version: z.literal(1),
})

/** `devices/<id>/device.json`: the device's readable name. */
export const deviceFileSchema = z.strictObject({
  device: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/u),
  name: z.string().min(1).max(200),
  updatedAt: z.string().max(40),
})

/** A device's description as read. */
export type DeviceFile = z.infer<typeof deviceFileSchema>

/**
 * Validate a device description.
 * @param value - the parsed JSON.
 * @returns the description, or undefined when it is not one.
 */
export function parseDeviceFile(value: unknown): DeviceFile | undefined {
  const result = deviceFileSchema.safeParse(value)
  return result.success ? result.data : undefined
}

/**
 * Whether a parsed marker names a sync folder of a version this plugin reads.
 * @param value - the parsed JSON.
 * @returns true when it does.
 */
export function isFolderMarker(value: unknown): boolean {
  return folderMarkerSchema.safeParse(value).success
}
