// The resource API's documents, as GeoServer's ResourceController writes them: ResourceDirectory
// and ResourceMetadata in XML (atom:link elements) or JSON ("link": {href, rel, type}); the
// Resource-Type / Resource-Parent / Last-Modified headers; a file's media type from its extension.
import path from 'node:path'
import type { ResourceChild, ResourceInfo } from '../../services/resource/service.js'
import { escapeXml, type Format } from '../infra/representation.js'

const ATOM = 'http://www.w3.org/2005/Atom'

const MEDIA: Record<string, string> = {
  '.sld': 'application/vnd.ogc.sld+xml',
  '.xml': 'application/xml',
  '.json': 'application/json',
  '.css': 'text/css',
  '.txt': 'text/plain',
  '.ftl': 'text/plain',
  '.properties': 'text/plain',
  '.html': 'text/html',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.ttf': 'font/ttf'
}

export function mediaTypeOf (name: string): string {
  return MEDIA[path.extname(name).toLowerCase()] ?? 'application/octet-stream'
}

/** GeoServer's date form: 2026-11-27 06:43:48.123 UTC. */
export function formatDate (d: Date): string {
  return d.toISOString().replace('T', ' ').replace('Z', ' UTC')
}

const hrefOf = (base: string, p: string, query = '') =>
  `${base}/${p.split('/').filter((s) => s !== '').map(encodeURIComponent).join('/')}${query}`

interface LinkInfo { href: string, type: string }

const linkXml = (l: LinkInfo, indent: string) =>
  `${indent}<atom:link xmlns:atom="${ATOM}" rel="alternate" href="${escapeXml(l.href)}" type="${escapeXml(l.type)}"/>`
const linkJson = (l: LinkInfo) => ({ href: l.href, rel: 'alternate', type: l.type })

const mediaOf = (format: Format) => format === 'json' ? 'application/json' : 'application/xml'

function parentLink (info: ResourceInfo, base: string, format: Format, query: string): LinkInfo | undefined {
  if (info.parent === undefined) return undefined
  return { href: hrefOf(base, info.parent, query), type: mediaOf(format) }
}

function head (info: ResourceInfo, base: string, format: Format, query: string): { xml: string[], json: Record<string, unknown> } {
  const parent = parentLink(info, base, format, query)
  const xml = [`  <name>${escapeXml(info.name)}</name>`]
  const json: Record<string, unknown> = { name: info.name }
  if (parent) {
    xml.push('  <parent>', `    <path>/${escapeXml(info.parent!)}</path>`, linkXml(parent, '    '), '  </parent>')
    json.parent = { path: '/' + info.parent!, link: linkJson(parent) }
  }
  xml.push(`  <lastModified>${formatDate(info.lastModified)}</lastModified>`)
  json.lastModified = formatDate(info.lastModified)
  return { xml, json }
}

export function directoryDoc (info: ResourceInfo, children: ResourceChild[], base: string, format: Format): string {
  const query = `?format=${format}`
  const { xml, json } = head(info, base, format, query)
  const links = children.map((c) => {
    const p = info.path === '' ? c.name : `${info.path}/${c.name}`
    const link = c.kind === 'directory' ? { href: hrefOf(base, p, query), type: mediaOf(format) } : { href: hrefOf(base, p), type: mediaTypeOf(c.name) }
    return { name: c.name, link }
  })
  if (format === 'json') {
    return JSON.stringify({ ResourceDirectory: { ...json, children: links.length === 0 ? '' : { child: links.map((c) => ({ name: c.name, link: linkJson(c.link) })) } } })
  }
  xml.push(links.length === 0 ? '  <children/>' : '  <children>')
  for (const c of links) xml.push('    <child>', `      <name>${escapeXml(c.name)}</name>`, linkXml(c.link, '      '), '    </child>')
  if (links.length > 0) xml.push('  </children>')
  return ['<ResourceDirectory>', ...xml, '</ResourceDirectory>'].join('\n')
}

export function metadataDoc (info: ResourceInfo, base: string, format: Format): string {
  const { xml, json } = head(info, base, format, `?operation=metadata&format=${format}`)
  if (format === 'json') return JSON.stringify({ ResourceMetadata: { ...json, type: info.kind } })
  return ['<ResourceMetadata>', ...xml, `  <type>${info.kind}</type>`, '</ResourceMetadata>'].join('\n')
}

export function resourceHeaders (info: ResourceInfo): Record<string, string> {
  const h: Record<string, string> = { 'last-modified': info.lastModified.toUTCString(), 'resource-type': info.kind }
  if (info.parent !== undefined) h['resource-parent'] = encodeURI('/' + info.parent)
  return h
}
