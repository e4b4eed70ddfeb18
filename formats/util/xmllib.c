/*
 * xmllib.c - the libxml2 table of xmllib.h.
 */
#include "dynlib.h"

/* the names here are the real functions, not the macros */
#define SF_XMLLIB_NO_MACROS
#include "xmllib.h"

/* The soname the build found (Makefile, XML_SONAME); libxml2 kept .2
 * from 2.0 to 2.13. */
#ifndef SF_XML_SONAME
#define SF_XML_SONAME "libxml2.so.2"
#endif

struct sf_xml_api sf_xml__api;

static struct sf_dynlib lib =
	SF_DYNLIB_INIT("libxml2", SF_XML_SONAME, sf_xml__api, SF_XML_FUNCS);

int sf_xml__load(struct sf_ctx *ctx)
{
	return sf_dynlib_load(&lib, ctx);
}
