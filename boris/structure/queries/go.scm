; Definitions in Go. A method is qualified by its receiver's type (@receiver).

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @receiver))
  name: (field_identifier) @name) @definition.method

(type_declaration
  (type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct)

(type_declaration
  (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface)

(type_declaration (type_spec name: (type_identifier) @name) @definition.type)

(type_declaration (type_alias name: (type_identifier) @name) @definition.type)

; The methods of a named interface type (an interface written in place, as in
; x.(interface{ CloseWrite() error }), names no type its methods belong to).
(type_spec
  type: (interface_type (method_elem name: (field_identifier) @name) @definition.method))

(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))

(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))

(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))
