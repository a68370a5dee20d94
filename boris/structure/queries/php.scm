; Definitions in PHP. A namespace given by a statement (namespace A\B;) is a one-line
; definition, not a container.

(namespace_definition name: (_) @name) @definition.module

(class_declaration name: (name) @name) @definition.class

(interface_declaration name: (name) @name) @definition.interface

(trait_declaration name: (name) @name) @definition.trait

(enum_declaration name: (name) @name) @definition.enum

(function_definition name: (name) @name) @definition.function

(method_declaration name: (name) @name) @definition.method

(const_declaration (const_element (name) @name)) @definition.constant
