; Definitions in Swift. class_declaration is also a struct, an enum, an actor or an
; extension, told by its declaration_kind. An extension is no definition of its own:
; it qualifies what it holds with the type it extends (@scope). The grammar calls a
; return type a "name" too, hence the node types.

(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct

(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum

(class_declaration declaration_kind: "extension" name: (_) @name) @scope

(class_declaration name: (type_identifier) @name) @definition.class

(protocol_declaration name: (type_identifier) @name) @definition.interface

(function_declaration name: (simple_identifier) @name) @definition.function

; An operator function (static func ==, prefix func -): its name is the operator's
; token; the grammar also calls the return type a name, which the predicate leaves out.
(function_declaration
  name: _ @name
  (#match? @name "^[^A-Za-z0-9_]+$")) @definition.function

(protocol_function_declaration name: (simple_identifier) @name) @definition.method

(init_declaration "init" @name) @definition.method

(typealias_declaration name: (type_identifier) @name) @definition.type

(source_file
  (property_declaration
    (value_binding_pattern "let")
    name: (pattern bound_identifier: (_) @name)) @definition.constant)

(source_file
  (property_declaration name: (pattern bound_identifier: (_) @name)) @definition.variable)
