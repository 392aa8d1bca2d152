import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseSld, rasterStyleOf } from '../../../services/styles/sld.js'

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'test', 'fixtures', 'styles')
const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name), 'utf8')

t.test('SLD 1.0.0 and SE 1.1.0 documents parse with their version and first UserStyle name', async (t) => {
  const rain = await parseSld(fixture('rain.sld'))
  t.equal(rain.version, '1.0.0')
  t.equal(rain.styleName, 'rain')
  const se = await parseSld(fixture('classes-se.sld'))
  t.equal(se.version, '1.1.0')
  t.equal(se.styleName, 'classes', 'se:Name reads like Name')
  const prefixed = await parseSld(fixture('gray-gamma.sld'))
  t.equal(prefixed.styleName, 'gray-gamma', 'sld: prefixes are dropped')
})

t.test('a missing version attribute reads as 1.0.0; a UserStyle without Name has no style name', async (t) => {
  const sld = fixture('rain.sld').replace(' version="1.0.0"', '').replace('<Name>rain</Name>\n      <Title>', '<Title>')
  const parsed = await parseSld(sld)
  t.equal(parsed.version, '1.0.0')
  t.equal(parsed.styleName, undefined)
})

t.test('structural errors name the element', async (t) => {
  const rejects = (sld: string, message: string) => t.rejects(parseSld(sld), { message: `Invalid style:${message}` }, message)
  await rejects('<StyledLayerDescriptor xmlns="http://www.opengis.net/sld" version="1.0.0"><NamedLayer><Name>x</Name></NamedLayer></StyledLayerDescriptor>', 'a layer of the SLD has no UserStyle or NamedStyle')
  await rejects('<StyledLayerDescriptor xmlns="http://www.opengis.net/sld"><NamedLayer><UserStyle><Name>x</Name></UserStyle></NamedLayer></StyledLayerDescriptor>', 'UserStyle has no FeatureTypeStyle')
  await rejects('<StyledLayerDescriptor xmlns="http://www.opengis.net/sld"><NamedLayer><UserStyle><FeatureTypeStyle/></UserStyle></NamedLayer></StyledLayerDescriptor>', 'FeatureTypeStyle has no Rule')
  await rejects('<StyledLayerDescriptor><NamedLayer/></StyledLayerDescriptor>', 'StyledLayerDescriptor must be in the namespace http://www.opengis.net/sld, found none')
  await rejects(fixture('dem.sld').replace('type="ramp"', 'type="smooth"'), 'ColorMap type must be ramp, intervals or values, found "smooth"')
  await rejects(fixture('dem.sld').replace('<Opacity>1.0</Opacity>', '<Opacity>2</Opacity>'), 'Opacity must be a number from 0 to 1, found "2"')
  await rejects(fixture('dem.sld').replace('<SourceChannelName>1</SourceChannelName>', '<SourceChannelName>0</SourceChannelName>'), 'GrayChannel SourceChannelName must be a number from 1 to 65535, found "0"')
  await rejects(fixture('dem.sld').replace('quantity="500"', 'quantity="high"'), 'ColorMapEntry quantity must be a number, found "high"')
  await rejects(fixture('gray-gamma.sld').replace('<sld:GrayChannel>', '<sld:RedChannel>').replace('</sld:GrayChannel>', '</sld:RedChannel>'), 'ChannelSelection needs a GrayChannel or all of RedChannel, GreenChannel and BlueChannel')
})

t.test('the IsDefault UserStyle\'s RasterSymbolizer is the one compiled', async (t) => {
  const two = fixture('dem.sld').replace('<UserStyle>', fixture('gray-gamma.sld').match(/<sld:UserStyle>[\s\S]*<\/sld:UserStyle>/)![0].replace(/sld:/g, '') + '<UserStyle><IsDefault>1</IsDefault>')
  const style = rasterStyleOf(await parseSld(two))
  t.equal(style?.colorMap?.entries.length, 3)
})

t.test('an RGB ChannelSelection with a per-channel ContrastEnhancement compiles', async (t) => {
  const rs = '<RasterSymbolizer><ChannelSelection>' +
    ['Red', 'Green', 'Blue'].map((c, i) => `<${c}Channel><SourceChannelName>${3 - i}</SourceChannelName>${i === 0 ? '<ContrastEnhancement><Histogram/></ContrastEnhancement>' : ''}</${c}Channel>`).join('') +
    '</ChannelSelection></RasterSymbolizer>'
  const sld = fixture('dem.sld').replace(/<RasterSymbolizer>[\s\S]*<\/RasterSymbolizer>/, rs)
  t.same(rasterStyleOf(await parseSld(sld)), { channels: { red: 3, green: 2, blue: 1 }, contrast: { method: 'histogram' } })
})
