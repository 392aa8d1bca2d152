// Route shapes shared by several areas (TypeBox, so types and JSON schema come from one place).
import { Type } from '@sinclair/typebox'

export const WorkspaceParams = Type.Object({ ws: Type.String({ minLength: 1 }) })
export const RecurseQuery = Type.Object({ recurse: Type.Optional(Type.Boolean()) })
