/** The method table of 2026-07-28 plus the Tasks extension, and the 2025-only requests. */
import { LEGACY_METHOD, METHOD } from '../../protocol/constants.ts'
import type { MethodEntry, MethodTable } from '../dispatch.ts'
import { complete } from './completion.ts'
import { discover } from './discover.ts'
import { initialize, ping, setLevel, subscription } from './legacy.ts'
import { listen } from './listen.ts'
import { promptsGet, promptsList } from './prompts.ts'
import { resourcesList, resourcesRead, resourceTemplatesList } from './resources.ts'
import { tasksCancel, tasksGet, tasksUpdate } from './tasks.ts'
import { toolsCall, toolsList } from './tools.ts'

export function createMethodTable(): MethodTable {
  return new Map<string, MethodEntry>([
    [METHOD.discover, discover],
    [METHOD.listen, listen],
    [METHOD.toolsList, toolsList],
    [METHOD.toolsCall, toolsCall],
    [METHOD.resourcesList, resourcesList],
    [METHOD.resourceTemplatesList, resourceTemplatesList],
    [METHOD.resourcesRead, resourcesRead],
    [METHOD.promptsList, promptsList],
    [METHOD.promptsGet, promptsGet],
    [METHOD.complete, complete],
    [METHOD.tasksGet, tasksGet],
    [METHOD.tasksUpdate, tasksUpdate],
    [METHOD.tasksCancel, tasksCancel],
    [LEGACY_METHOD.initialize, initialize],
    [LEGACY_METHOD.ping, ping],
    [LEGACY_METHOD.setLevel, setLevel],
    [LEGACY_METHOD.subscribe, subscription],
    [LEGACY_METHOD.unsubscribe, subscription],
  ])
}
