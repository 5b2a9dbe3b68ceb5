/**
 * Shape checks for the content blocks the runtime sends on a handler's behalf (partial results;
 * SEP-2998 reuses `ContentBlock`). Cheap structural guards, not full schema validation.
 */
import { isObject } from './jsonrpc.ts'
import type { ContentBlock } from './types.ts'

function isResourceContents(value: unknown): boolean {
  return isObject(value) && typeof value.uri === 'string' && (typeof value.text === 'string' || typeof value.blob === 'string')
}

/** Whether `value` is one of text, image, audio, resource_link or resource (server/tools). */
export function isContentBlock(value: unknown): value is ContentBlock {
  if (!isObject(value)) return false
  switch (value.type) {
    case 'text':
      return typeof value.text === 'string'
    case 'image':
    case 'audio':
      return typeof value.data === 'string' && typeof value.mimeType === 'string'
    case 'resource_link':
      return typeof value.uri === 'string' && typeof value.name === 'string'
    case 'resource':
      return isResourceContents(value.resource)
    default:
      return false
  }
}

/** The first invalid block's index, or -1 when every block is valid. */
export function findInvalidContent(content: unknown): number {
  if (!Array.isArray(content)) return 0
  return content.findIndex((block) => !isContentBlock(block))
}
