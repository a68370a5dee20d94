; Definitions in C++. A template starts at its template line (its pattern comes
; first). A member function defined out of its class (void A::f() {}) is qualified
; by the name before its ::, as the code reads the declarator.

(template_declaration
  (class_specifier name: (_) @name body: (_))) @definition.class

(template_declaration
  (struct_specifier name: (_) @name body: (_))) @definition.struct

(template_declaration
  (function_definition
    declarator: [(function_declarator) (pointer_declarator) (reference_declarator)
                 (parenthesized_declarator) (attributed_declarator)] @declarator)) @definition.function

(template_declaration
  (alias_declaration name: (type_identifier) @name)) @definition.type

(class_specifier name: (_) @name body: (_)) @definition.class

(struct_specifier name: (_) @name body: (_)) @definition.struct

(union_specifier name: (_) @name body: (_)) @definition.struct

(enum_specifier name: (_) @name body: (_)) @definition.enum

(namespace_definition name: (_) @name) @definition.module

; A function's declarator declares a function (a name, then its parameters): where
; a macro the parser does not know stands between them (void g() NOEXCEPT_MACRO {}),
; the parser takes the macro for the name and the real declarator (or a call's
; look-alike, at the top of a file) for an error; the name is then the error's. A function defined inside a function's body is a misread
; preprocessor branch or macro (boris.structure.definitions), never a definition.
(function_definition
  (ERROR (function_declarator) @declarator)
  declarator: [(identifier) (field_identifier)]) @definition.function

(function_definition
  (ERROR (init_declarator declarator: (identifier) @name value: (argument_list)))
  declarator: (identifier)) @definition.function

(function_definition
    declarator: [(function_declarator) (pointer_declarator) (reference_declarator)
                 (parenthesized_declarator) (attributed_declarator)] @declarator) @definition.function

; A pure virtual member function (virtual void f() = 0;): declared in its class,
; defined in none.
(field_declaration
  declarator: (function_declarator) @declarator
  default_value: (number_literal)) @definition.function

(type_definition declarator: (_) @declarator) @definition.type

(alias_declaration name: (type_identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.constant

(preproc_function_def name: (identifier) @name) @definition.function

(translation_unit
  (declaration declarator: (init_declarator declarator: (_) @declarator)) @definition.variable)

(translation_unit
  (declaration declarator: [(identifier) (array_declarator) (pointer_declarator)] @declarator) @definition.variable)

(namespace_definition
  body: (declaration_list
    (declaration declarator: (init_declarator declarator: (_) @declarator)) @definition.variable))
