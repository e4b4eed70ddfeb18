/*
 * xmllib.h - internal: libxml2, loaded on first use (dynlib.h).
 *
 * Include this instead of libxml2's headers and call sf_xml__load() before
 * the first libxml2 call; from here on each libxml2 function the project
 * calls is a macro for its loaded pointer.  A libxml2 function missing
 * from SF_XML_FUNCS fails to link: add it there and below.
 */
#ifndef SF_XMLLIB_H
#define SF_XMLLIB_H

#include "sf.h"

#include <libxml/chvalid.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>

#define SF_XML_FUNCS(X)                                                     \
	X(xmlGetUTF8Char) X(xmlGetLineNo)                                   \
	X(xmlOutputBufferCreateIO) X(xmlOutputBufferClose)                  \
	X(xmlNewTextWriter) X(xmlFreeTextWriter)                            \
	X(xmlTextWriterStartDocument) X(xmlTextWriterEndDocument)           \
	X(xmlTextWriterFlush) X(xmlTextWriterStartElement)                  \
	X(xmlTextWriterEndElement) X(xmlTextWriterWriteAttribute)           \
	X(xmlTextWriterWriteString) X(xmlTextWriterWriteRaw)                \
	X(xmlTextWriterWriteCDATA) X(xmlTextWriterWriteFormatComment)       \
	X(xmlReaderForIO) X(xmlFreeTextReader) X(xmlTextReaderRead)         \
	X(xmlTextReaderNodeType) X(xmlTextReaderConstLocalName)             \
	X(xmlTextReaderConstValue) X(xmlTextReaderDepth)                    \
	X(xmlTextReaderIsEmptyElement) X(xmlTextReaderMoveToNextAttribute)  \
	X(xmlTextReaderMoveToElement) X(xmlTextReaderCurrentNode)           \
	X(xmlTextReaderGetParserLineNumber)                                 \
	X(xmlTextReaderSetErrorHandler) X(xmlTextReaderLocatorLineNumber)

struct sf_xml_api {
#define SF_XML_PTR(f) __typeof__(f) *f;
	SF_XML_FUNCS(SF_XML_PTR)
#undef SF_XML_PTR
};

extern struct sf_xml_api sf_xml__api;

/* Load libxml2 once; SF_EIO with one line when it cannot be loaded. */
int sf_xml__load(struct sf_ctx *ctx);

#ifndef SF_XMLLIB_NO_MACROS
#define xmlGetUTF8Char (*sf_xml__api.xmlGetUTF8Char)
#define xmlGetLineNo (*sf_xml__api.xmlGetLineNo)
#define xmlOutputBufferCreateIO (*sf_xml__api.xmlOutputBufferCreateIO)
#define xmlOutputBufferClose (*sf_xml__api.xmlOutputBufferClose)
#define xmlNewTextWriter (*sf_xml__api.xmlNewTextWriter)
#define xmlFreeTextWriter (*sf_xml__api.xmlFreeTextWriter)
#define xmlTextWriterStartDocument (*sf_xml__api.xmlTextWriterStartDocument)
#define xmlTextWriterEndDocument (*sf_xml__api.xmlTextWriterEndDocument)
#define xmlTextWriterFlush (*sf_xml__api.xmlTextWriterFlush)
#define xmlTextWriterStartElement (*sf_xml__api.xmlTextWriterStartElement)
#define xmlTextWriterEndElement (*sf_xml__api.xmlTextWriterEndElement)
#define xmlTextWriterWriteAttribute \
	(*sf_xml__api.xmlTextWriterWriteAttribute)
#define xmlTextWriterWriteString (*sf_xml__api.xmlTextWriterWriteString)
#define xmlTextWriterWriteRaw (*sf_xml__api.xmlTextWriterWriteRaw)
#define xmlTextWriterWriteCDATA (*sf_xml__api.xmlTextWriterWriteCDATA)
#define xmlTextWriterWriteFormatComment \
	(*sf_xml__api.xmlTextWriterWriteFormatComment)
#define xmlReaderForIO (*sf_xml__api.xmlReaderForIO)
#define xmlFreeTextReader (*sf_xml__api.xmlFreeTextReader)
#define xmlTextReaderRead (*sf_xml__api.xmlTextReaderRead)
#define xmlTextReaderNodeType (*sf_xml__api.xmlTextReaderNodeType)
#define xmlTextReaderConstLocalName \
	(*sf_xml__api.xmlTextReaderConstLocalName)
#define xmlTextReaderConstValue (*sf_xml__api.xmlTextReaderConstValue)
#define xmlTextReaderDepth (*sf_xml__api.xmlTextReaderDepth)
#define xmlTextReaderIsEmptyElement \
	(*sf_xml__api.xmlTextReaderIsEmptyElement)
#define xmlTextReaderMoveToNextAttribute \
	(*sf_xml__api.xmlTextReaderMoveToNextAttribute)
#define xmlTextReaderMoveToElement (*sf_xml__api.xmlTextReaderMoveToElement)
#define xmlTextReaderCurrentNode (*sf_xml__api.xmlTextReaderCurrentNode)
#define xmlTextReaderGetParserLineNumber \
	(*sf_xml__api.xmlTextReaderGetParserLineNumber)
#define xmlTextReaderSetErrorHandler \
	(*sf_xml__api.xmlTextReaderSetErrorHandler)
#define xmlTextReaderLocatorLineNumber \
	(*sf_xml__api.xmlTextReaderLocatorLineNumber)
#endif

#endif
