/** The method table of 2026-07-28 plus the Tasks extension. */
import { METHOD } from '../../protocol/constants.ts'
import type { MethodEntry, MethodTable } from '../dispatch.ts'
import { complete } from './completion.ts'
import { discover } from './discover.ts'
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
  ])
}
