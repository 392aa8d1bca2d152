// {base}/rest/settings, settings/contact, reload and reset: the documented shapes.
import { Type } from '@fastify/type-provider-typebox'
import { Empty, field, fields, representation, rootBody } from './common.js'
import { CONTACT_FIELDS } from '../services/settings/settings.js'

const contactProps = Object.fromEntries(CONTACT_FIELDS.map((f) => [f, Type.Optional(Type.String())]))
export const Contact = Type.Object({ contact: Type.Object(contactProps) })
export const Global = Type.Object({
  global: Type.Object({
    settings: Type.Object({
      contact: Type.Object(contactProps),
      charset: Type.String(),
      numDecimals: Type.Integer(),
      onlineResource: Type.Optional(Type.String()),
      proxyBaseUrl: Type.Optional(Type.String()),
      verbose: Type.Boolean(),
      verboseExceptions: Type.Boolean()
    }),
    updateSequence: Type.Integer()
  })
})

const contactFields = Object.fromEntries(CONTACT_FIELDS.map((f) => [f, field(`${f} ("" clears it)`, Type.String())]))

/** PUT settings/contact: `{ contact: {...} }`, partial. */
export const ContactBody = rootBody(['contact'], fields(contactFields, 'Fields not sent keep their value; other fields are refused by name'))

/** PUT settings: `{ global: { settings: {...} } }`, partial. */
export const GlobalBody = rootBody(['global'], fields({
  settings: field('charset, numDecimals (0-17), onlineResource, proxyBaseUrl (an http(s) URL that replaces http(s)://host{base} in every URL written; "" removes it), verbose, verboseExceptions, contact'),
  updateSequence: field('Read-only: accepted and ignored', Type.Integer())
}, 'Fields not sent keep their value; other fields are refused by name'))

export const responses = {
  global: { 200: representation('The global settings', Global) },
  contact: { 200: representation('The global contact information', Contact) },
  done: { 200: Empty }
}
