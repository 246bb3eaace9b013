// h5web v17.0.0 packages/h5wasm/src/worker.ts bundled by scripts/vendor/h5web-reference.mjs (MIT, see LICENSE.md). Do not edit.
// createReference(h5wasm) -> the worker API (openFileBuffer, getEntity, getValue, getAttrValue, ...) on that h5wasm module.
export function createReference(__h5wasm) {
var __reference = (() => {
  var __create = Object.create;
  var __defProp = Object.defineProperty;
  var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
  var __getOwnPropNames = Object.getOwnPropertyNames;
  var __getProtoOf = Object.getPrototypeOf;
  var __hasOwnProp = Object.prototype.hasOwnProperty;
  var __commonJS = (cb, mod) => function __require() {
    try {
      return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
    } catch (e) {
      throw mod = 0, e;
    }
  };
  var __export = (target, all) => {
    for (var name in all)
      __defProp(target, name, { get: all[name], enumerable: true });
  };
  var __copyProps = (to, from, except, desc) => {
    if (from && typeof from === "object" || typeof from === "function") {
      for (let key of __getOwnPropNames(from))
        if (!__hasOwnProp.call(to, key) && key !== except)
          __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
    }
    return to;
  };
  var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
    // If the importer is in node compatibility mode or this is not an ESM
    // file that has been converted to a CommonJS file using a Babel-
    // compatible transform (i.e. "__esModule" has not been set), then set
    // "default" to the CommonJS "module.exports" for node compatibility.
    isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
    mod
  ));
  var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

  // node_modules/iota-array/iota.js
  var require_iota = __commonJS({
    "node_modules/iota-array/iota.js"(exports, module) {
      "use strict";
      function iota(n2) {
        var result = new Array(n2);
        for (var i = 0; i < n2; ++i) {
          result[i] = i;
        }
        return result;
      }
      module.exports = iota;
    }
  });

  // node_modules/is-buffer/index.js
  var require_is_buffer = __commonJS({
    "node_modules/is-buffer/index.js"(exports, module) {
      module.exports = function(obj) {
        return obj != null && (isBuffer(obj) || isSlowBuffer(obj) || !!obj._isBuffer);
      };
      function isBuffer(obj) {
        return !!obj.constructor && typeof obj.constructor.isBuffer === "function" && obj.constructor.isBuffer(obj);
      }
      function isSlowBuffer(obj) {
        return typeof obj.readFloatLE === "function" && typeof obj.slice === "function" && isBuffer(obj.slice(0, 0));
      }
    }
  });

  // node_modules/ndarray/ndarray.js
  var require_ndarray = __commonJS({
    "node_modules/ndarray/ndarray.js"(exports, module) {
      var iota = require_iota();
      var isBuffer = require_is_buffer();
      var hasTypedArrays = typeof Float64Array !== "undefined";
      function compare1st(a, b) {
        return a[0] - b[0];
      }
      function order() {
        var stride = this.stride;
        var terms = new Array(stride.length);
        var i;
        for (i = 0; i < terms.length; ++i) {
          terms[i] = [Math.abs(stride[i]), i];
        }
        terms.sort(compare1st);
        var result = new Array(terms.length);
        for (i = 0; i < result.length; ++i) {
          result[i] = terms[i][1];
        }
        return result;
      }
      function compileConstructor(dtype, dimension) {
        var className = ["View", dimension, "d", dtype].join("");
        if (dimension < 0) {
          className = "View_Nil" + dtype;
        }
        var useGetters = dtype === "generic";
        if (dimension === -1) {
          var code = "function " + className + "(a){this.data=a;};var proto=" + className + ".prototype;proto.dtype='" + dtype + "';proto.index=function(){return -1};proto.size=0;proto.dimension=-1;proto.shape=proto.stride=proto.order=[];proto.lo=proto.hi=proto.transpose=proto.step=function(){return new " + className + "(this.data);};proto.get=proto.set=function(){};proto.pick=function(){return null};return function construct_" + className + "(a){return new " + className + "(a);}";
          var procedure = new Function(code);
          return procedure();
        } else if (dimension === 0) {
          var code = "function " + className + "(a,d) {this.data = a;this.offset = d};var proto=" + className + ".prototype;proto.dtype='" + dtype + "';proto.index=function(){return this.offset};proto.dimension=0;proto.size=1;proto.shape=proto.stride=proto.order=[];proto.lo=proto.hi=proto.transpose=proto.step=function " + className + "_copy() {return new " + className + "(this.data,this.offset)};proto.pick=function " + className + "_pick(){return TrivialArray(this.data);};proto.valueOf=proto.get=function " + className + "_get(){return " + (useGetters ? "this.data.get(this.offset)" : "this.data[this.offset]") + "};proto.set=function " + className + "_set(v){return " + (useGetters ? "this.data.set(this.offset,v)" : "this.data[this.offset]=v") + "};return function construct_" + className + "(a,b,c,d){return new " + className + "(a,d)}";
          var procedure = new Function("TrivialArray", code);
          return procedure(CACHED_CONSTRUCTORS[dtype][0]);
        }
        var code = ["'use strict'"];
        var indices = iota(dimension);
        var args = indices.map(function(i2) {
          return "i" + i2;
        });
        var index_str = "this.offset+" + indices.map(function(i2) {
          return "this.stride[" + i2 + "]*i" + i2;
        }).join("+");
        var shapeArg = indices.map(function(i2) {
          return "b" + i2;
        }).join(",");
        var strideArg = indices.map(function(i2) {
          return "c" + i2;
        }).join(",");
        code.push(
          "function " + className + "(a," + shapeArg + "," + strideArg + ",d){this.data=a",
          "this.shape=[" + shapeArg + "]",
          "this.stride=[" + strideArg + "]",
          "this.offset=d|0}",
          "var proto=" + className + ".prototype",
          "proto.dtype='" + dtype + "'",
          "proto.dimension=" + dimension
        );
        code.push(
          "Object.defineProperty(proto,'size',{get:function " + className + "_size(){return " + indices.map(function(i2) {
            return "this.shape[" + i2 + "]";
          }).join("*"),
          "}})"
        );
        if (dimension === 1) {
          code.push("proto.order=[0]");
        } else {
          code.push("Object.defineProperty(proto,'order',{get:");
          if (dimension < 4) {
            code.push("function " + className + "_order(){");
            if (dimension === 2) {
              code.push("return (Math.abs(this.stride[0])>Math.abs(this.stride[1]))?[1,0]:[0,1]}})");
            } else if (dimension === 3) {
              code.push(
                "var s0=Math.abs(this.stride[0]),s1=Math.abs(this.stride[1]),s2=Math.abs(this.stride[2]);if(s0>s1){if(s1>s2){return [2,1,0];}else if(s0>s2){return [1,2,0];}else{return [1,0,2];}}else if(s0>s2){return [2,0,1];}else if(s2>s1){return [0,1,2];}else{return [0,2,1];}}})"
              );
            }
          } else {
            code.push("ORDER})");
          }
        }
        code.push(
          "proto.set=function " + className + "_set(" + args.join(",") + ",v){"
        );
        if (useGetters) {
          code.push("return this.data.set(" + index_str + ",v)}");
        } else {
          code.push("return this.data[" + index_str + "]=v}");
        }
        code.push("proto.get=function " + className + "_get(" + args.join(",") + "){");
        if (useGetters) {
          code.push("return this.data.get(" + index_str + ")}");
        } else {
          code.push("return this.data[" + index_str + "]}");
        }
        code.push(
          "proto.index=function " + className + "_index(",
          args.join(),
          "){return " + index_str + "}"
        );
        code.push("proto.hi=function " + className + "_hi(" + args.join(",") + "){return new " + className + "(this.data," + indices.map(function(i2) {
          return ["(typeof i", i2, "!=='number'||i", i2, "<0)?this.shape[", i2, "]:i", i2, "|0"].join("");
        }).join(",") + "," + indices.map(function(i2) {
          return "this.stride[" + i2 + "]";
        }).join(",") + ",this.offset)}");
        var a_vars = indices.map(function(i2) {
          return "a" + i2 + "=this.shape[" + i2 + "]";
        });
        var c_vars = indices.map(function(i2) {
          return "c" + i2 + "=this.stride[" + i2 + "]";
        });
        code.push("proto.lo=function " + className + "_lo(" + args.join(",") + "){var b=this.offset,d=0," + a_vars.join(",") + "," + c_vars.join(","));
        for (var i = 0; i < dimension; ++i) {
          code.push(
            "if(typeof i" + i + "==='number'&&i" + i + ">=0){d=i" + i + "|0;b+=c" + i + "*d;a" + i + "-=d}"
          );
        }
        code.push("return new " + className + "(this.data," + indices.map(function(i2) {
          return "a" + i2;
        }).join(",") + "," + indices.map(function(i2) {
          return "c" + i2;
        }).join(",") + ",b)}");
        code.push("proto.step=function " + className + "_step(" + args.join(",") + "){var " + indices.map(function(i2) {
          return "a" + i2 + "=this.shape[" + i2 + "]";
        }).join(",") + "," + indices.map(function(i2) {
          return "b" + i2 + "=this.stride[" + i2 + "]";
        }).join(",") + ",c=this.offset,d=0,ceil=Math.ceil");
        for (var i = 0; i < dimension; ++i) {
          code.push(
            "if(typeof i" + i + "==='number'){d=i" + i + "|0;if(d<0){c+=b" + i + "*(a" + i + "-1);a" + i + "=ceil(-a" + i + "/d)}else{a" + i + "=ceil(a" + i + "/d)}b" + i + "*=d}"
          );
        }
        code.push("return new " + className + "(this.data," + indices.map(function(i2) {
          return "a" + i2;
        }).join(",") + "," + indices.map(function(i2) {
          return "b" + i2;
        }).join(",") + ",c)}");
        var tShape = new Array(dimension);
        var tStride = new Array(dimension);
        for (var i = 0; i < dimension; ++i) {
          tShape[i] = "a[i" + i + "]";
          tStride[i] = "b[i" + i + "]";
        }
        code.push(
          "proto.transpose=function " + className + "_transpose(" + args + "){" + args.map(function(n2, idx) {
            return n2 + "=(" + n2 + "===undefined?" + idx + ":" + n2 + "|0)";
          }).join(";"),
          "var a=this.shape,b=this.stride;return new " + className + "(this.data," + tShape.join(",") + "," + tStride.join(",") + ",this.offset)}"
        );
        code.push("proto.pick=function " + className + "_pick(" + args + "){var a=[],b=[],c=this.offset");
        for (var i = 0; i < dimension; ++i) {
          code.push("if(typeof i" + i + "==='number'&&i" + i + ">=0){c=(c+this.stride[" + i + "]*i" + i + ")|0}else{a.push(this.shape[" + i + "]);b.push(this.stride[" + i + "])}");
        }
        code.push("var ctor=CTOR_LIST[a.length+1];return ctor(this.data,a,b,c)}");
        code.push("return function construct_" + className + "(data,shape,stride,offset){return new " + className + "(data," + indices.map(function(i2) {
          return "shape[" + i2 + "]";
        }).join(",") + "," + indices.map(function(i2) {
          return "stride[" + i2 + "]";
        }).join(",") + ",offset)}");
        var procedure = new Function("CTOR_LIST", "ORDER", code.join("\n"));
        return procedure(CACHED_CONSTRUCTORS[dtype], order);
      }
      function arrayDType(data) {
        if (isBuffer(data)) {
          return "buffer";
        }
        if (hasTypedArrays) {
          switch (Object.prototype.toString.call(data)) {
            case "[object Float64Array]":
              return "float64";
            case "[object Float32Array]":
              return "float32";
            case "[object Int8Array]":
              return "int8";
            case "[object Int16Array]":
              return "int16";
            case "[object Int32Array]":
              return "int32";
            case "[object Uint8Array]":
              return "uint8";
            case "[object Uint16Array]":
              return "uint16";
            case "[object Uint32Array]":
              return "uint32";
            case "[object Uint8ClampedArray]":
              return "uint8_clamped";
            case "[object BigInt64Array]":
              return "bigint64";
            case "[object BigUint64Array]":
              return "biguint64";
          }
        }
        if (Array.isArray(data)) {
          return "array";
        }
        return "generic";
      }
      var CACHED_CONSTRUCTORS = {
        "float32": [],
        "float64": [],
        "int8": [],
        "int16": [],
        "int32": [],
        "uint8": [],
        "uint16": [],
        "uint32": [],
        "array": [],
        "uint8_clamped": [],
        "bigint64": [],
        "biguint64": [],
        "buffer": [],
        "generic": []
      };
      function wrappedNDArrayCtor(data, shape, stride, offset) {
        if (data === void 0) {
          var ctor = CACHED_CONSTRUCTORS.array[0];
          return ctor([]);
        } else if (typeof data === "number") {
          data = [data];
        }
        if (shape === void 0) {
          shape = [data.length];
        }
        var d = shape.length;
        if (stride === void 0) {
          stride = new Array(d);
          for (var i = d - 1, sz = 1; i >= 0; --i) {
            stride[i] = sz;
            sz *= shape[i];
          }
        }
        if (offset === void 0) {
          offset = 0;
          for (var i = 0; i < d; ++i) {
            if (stride[i] < 0) {
              offset -= (shape[i] - 1) * stride[i];
            }
          }
        }
        var dtype = arrayDType(data);
        var ctor_list = CACHED_CONSTRUCTORS[dtype];
        while (ctor_list.length <= d + 1) {
          ctor_list.push(compileConstructor(dtype, ctor_list.length - 1));
        }
        var ctor = ctor_list[d + 1];
        return ctor(data, shape, stride, offset);
      }
      module.exports = wrappedNDArrayCtor;
    }
  });

  // node_modules/uniq/uniq.js
  var require_uniq = __commonJS({
    "node_modules/uniq/uniq.js"(exports, module) {
      "use strict";
      function unique_pred(list, compare) {
        var ptr = 1, len = list.length, a = list[0], b = list[0];
        for (var i = 1; i < len; ++i) {
          b = a;
          a = list[i];
          if (compare(a, b)) {
            if (i === ptr) {
              ptr++;
              continue;
            }
            list[ptr++] = a;
          }
        }
        list.length = ptr;
        return list;
      }
      function unique_eq(list) {
        var ptr = 1, len = list.length, a = list[0], b = list[0];
        for (var i = 1; i < len; ++i, b = a) {
          b = a;
          a = list[i];
          if (a !== b) {
            if (i === ptr) {
              ptr++;
              continue;
            }
            list[ptr++] = a;
          }
        }
        list.length = ptr;
        return list;
      }
      function unique(list, compare, sorted) {
        if (list.length === 0) {
          return list;
        }
        if (compare) {
          if (!sorted) {
            list.sort(compare);
          }
          return unique_pred(list, compare);
        }
        if (!sorted) {
          list.sort();
        }
        return unique_eq(list);
      }
      module.exports = unique;
    }
  });

  // node_modules/cwise-compiler/lib/compile.js
  var require_compile = __commonJS({
    "node_modules/cwise-compiler/lib/compile.js"(exports, module) {
      "use strict";
      var uniq = require_uniq();
      function innerFill(order, proc, body) {
        var dimension = order.length, nargs = proc.arrayArgs.length, has_index = proc.indexArgs.length > 0, code = [], vars = [], idx = 0, pidx = 0, i, j;
        for (i = 0; i < dimension; ++i) {
          vars.push(["i", i, "=0"].join(""));
        }
        for (j = 0; j < nargs; ++j) {
          for (i = 0; i < dimension; ++i) {
            pidx = idx;
            idx = order[i];
            if (i === 0) {
              vars.push(["d", j, "s", i, "=t", j, "p", idx].join(""));
            } else {
              vars.push(["d", j, "s", i, "=(t", j, "p", idx, "-s", pidx, "*t", j, "p", pidx, ")"].join(""));
            }
          }
        }
        if (vars.length > 0) {
          code.push("var " + vars.join(","));
        }
        for (i = dimension - 1; i >= 0; --i) {
          idx = order[i];
          code.push(["for(i", i, "=0;i", i, "<s", idx, ";++i", i, "){"].join(""));
        }
        code.push(body);
        for (i = 0; i < dimension; ++i) {
          pidx = idx;
          idx = order[i];
          for (j = 0; j < nargs; ++j) {
            code.push(["p", j, "+=d", j, "s", i].join(""));
          }
          if (has_index) {
            if (i > 0) {
              code.push(["index[", pidx, "]-=s", pidx].join(""));
            }
            code.push(["++index[", idx, "]"].join(""));
          }
          code.push("}");
        }
        return code.join("\n");
      }
      function outerFill(matched, order, proc, body) {
        var dimension = order.length, nargs = proc.arrayArgs.length, blockSize = proc.blockSize, has_index = proc.indexArgs.length > 0, code = [];
        for (var i = 0; i < nargs; ++i) {
          code.push(["var offset", i, "=p", i].join(""));
        }
        for (var i = matched; i < dimension; ++i) {
          code.push(["for(var j" + i + "=SS[", order[i], "]|0;j", i, ">0;){"].join(""));
          code.push(["if(j", i, "<", blockSize, "){"].join(""));
          code.push(["s", order[i], "=j", i].join(""));
          code.push(["j", i, "=0"].join(""));
          code.push(["}else{s", order[i], "=", blockSize].join(""));
          code.push(["j", i, "-=", blockSize, "}"].join(""));
          if (has_index) {
            code.push(["index[", order[i], "]=j", i].join(""));
          }
        }
        for (var i = 0; i < nargs; ++i) {
          var indexStr = ["offset" + i];
          for (var j = matched; j < dimension; ++j) {
            indexStr.push(["j", j, "*t", i, "p", order[j]].join(""));
          }
          code.push(["p", i, "=(", indexStr.join("+"), ")"].join(""));
        }
        code.push(innerFill(order, proc, body));
        for (var i = matched; i < dimension; ++i) {
          code.push("}");
        }
        return code.join("\n");
      }
      function countMatches(orders) {
        var matched = 0, dimension = orders[0].length;
        while (matched < dimension) {
          for (var j = 1; j < orders.length; ++j) {
            if (orders[j][matched] !== orders[0][matched]) {
              return matched;
            }
          }
          ++matched;
        }
        return matched;
      }
      function processBlock(block, proc, dtypes) {
        var code = block.body;
        var pre = [];
        var post = [];
        for (var i = 0; i < block.args.length; ++i) {
          var carg = block.args[i];
          if (carg.count <= 0) {
            continue;
          }
          var re2 = new RegExp(carg.name, "g");
          var ptrStr = "";
          var arrNum = proc.arrayArgs.indexOf(i);
          switch (proc.argTypes[i]) {
            case "offset":
              var offArgIndex = proc.offsetArgIndex.indexOf(i);
              var offArg = proc.offsetArgs[offArgIndex];
              arrNum = offArg.array;
              ptrStr = "+q" + offArgIndex;
            // Adds offset to the "pointer" in the array
            case "array":
              ptrStr = "p" + arrNum + ptrStr;
              var localStr = "l" + i;
              var arrStr = "a" + arrNum;
              if (proc.arrayBlockIndices[arrNum] === 0) {
                if (carg.count === 1) {
                  if (dtypes[arrNum] === "generic") {
                    if (carg.lvalue) {
                      pre.push(["var ", localStr, "=", arrStr, ".get(", ptrStr, ")"].join(""));
                      code = code.replace(re2, localStr);
                      post.push([arrStr, ".set(", ptrStr, ",", localStr, ")"].join(""));
                    } else {
                      code = code.replace(re2, [arrStr, ".get(", ptrStr, ")"].join(""));
                    }
                  } else {
                    code = code.replace(re2, [arrStr, "[", ptrStr, "]"].join(""));
                  }
                } else if (dtypes[arrNum] === "generic") {
                  pre.push(["var ", localStr, "=", arrStr, ".get(", ptrStr, ")"].join(""));
                  code = code.replace(re2, localStr);
                  if (carg.lvalue) {
                    post.push([arrStr, ".set(", ptrStr, ",", localStr, ")"].join(""));
                  }
                } else {
                  pre.push(["var ", localStr, "=", arrStr, "[", ptrStr, "]"].join(""));
                  code = code.replace(re2, localStr);
                  if (carg.lvalue) {
                    post.push([arrStr, "[", ptrStr, "]=", localStr].join(""));
                  }
                }
              } else {
                var reStrArr = [carg.name], ptrStrArr = [ptrStr];
                for (var j = 0; j < Math.abs(proc.arrayBlockIndices[arrNum]); j++) {
                  reStrArr.push("\\s*\\[([^\\]]+)\\]");
                  ptrStrArr.push("$" + (j + 1) + "*t" + arrNum + "b" + j);
                }
                re2 = new RegExp(reStrArr.join(""), "g");
                ptrStr = ptrStrArr.join("+");
                if (dtypes[arrNum] === "generic") {
                  throw new Error("cwise: Generic arrays not supported in combination with blocks!");
                } else {
                  code = code.replace(re2, [arrStr, "[", ptrStr, "]"].join(""));
                }
              }
              break;
            case "scalar":
              code = code.replace(re2, "Y" + proc.scalarArgs.indexOf(i));
              break;
            case "index":
              code = code.replace(re2, "index");
              break;
            case "shape":
              code = code.replace(re2, "shape");
              break;
          }
        }
        return [pre.join("\n"), code, post.join("\n")].join("\n").trim();
      }
      function typeSummary(dtypes) {
        var summary = new Array(dtypes.length);
        var allEqual = true;
        for (var i = 0; i < dtypes.length; ++i) {
          var t = dtypes[i];
          var digits = t.match(/\d+/);
          if (!digits) {
            digits = "";
          } else {
            digits = digits[0];
          }
          if (t.charAt(0) === 0) {
            summary[i] = "u" + t.charAt(1) + digits;
          } else {
            summary[i] = t.charAt(0) + digits;
          }
          if (i > 0) {
            allEqual = allEqual && summary[i] === summary[i - 1];
          }
        }
        if (allEqual) {
          return summary[0];
        }
        return summary.join("");
      }
      function generateCWiseOp(proc, typesig) {
        var dimension = typesig[1].length - Math.abs(proc.arrayBlockIndices[0]) | 0;
        var orders = new Array(proc.arrayArgs.length);
        var dtypes = new Array(proc.arrayArgs.length);
        for (var i = 0; i < proc.arrayArgs.length; ++i) {
          dtypes[i] = typesig[2 * i];
          orders[i] = typesig[2 * i + 1];
        }
        var blockBegin = [], blockEnd = [];
        var loopBegin = [], loopEnd = [];
        var loopOrders = [];
        for (var i = 0; i < proc.arrayArgs.length; ++i) {
          if (proc.arrayBlockIndices[i] < 0) {
            loopBegin.push(0);
            loopEnd.push(dimension);
            blockBegin.push(dimension);
            blockEnd.push(dimension + proc.arrayBlockIndices[i]);
          } else {
            loopBegin.push(proc.arrayBlockIndices[i]);
            loopEnd.push(proc.arrayBlockIndices[i] + dimension);
            blockBegin.push(0);
            blockEnd.push(proc.arrayBlockIndices[i]);
          }
          var newOrder = [];
          for (var j = 0; j < orders[i].length; j++) {
            if (loopBegin[i] <= orders[i][j] && orders[i][j] < loopEnd[i]) {
              newOrder.push(orders[i][j] - loopBegin[i]);
            }
          }
          loopOrders.push(newOrder);
        }
        var arglist = ["SS"];
        var code = ["'use strict'"];
        var vars = [];
        for (var j = 0; j < dimension; ++j) {
          vars.push(["s", j, "=SS[", j, "]"].join(""));
        }
        for (var i = 0; i < proc.arrayArgs.length; ++i) {
          arglist.push("a" + i);
          arglist.push("t" + i);
          arglist.push("p" + i);
          for (var j = 0; j < dimension; ++j) {
            vars.push(["t", i, "p", j, "=t", i, "[", loopBegin[i] + j, "]"].join(""));
          }
          for (var j = 0; j < Math.abs(proc.arrayBlockIndices[i]); ++j) {
            vars.push(["t", i, "b", j, "=t", i, "[", blockBegin[i] + j, "]"].join(""));
          }
        }
        for (var i = 0; i < proc.scalarArgs.length; ++i) {
          arglist.push("Y" + i);
        }
        if (proc.shapeArgs.length > 0) {
          vars.push("shape=SS.slice(0)");
        }
        if (proc.indexArgs.length > 0) {
          var zeros = new Array(dimension);
          for (var i = 0; i < dimension; ++i) {
            zeros[i] = "0";
          }
          vars.push(["index=[", zeros.join(","), "]"].join(""));
        }
        for (var i = 0; i < proc.offsetArgs.length; ++i) {
          var off_arg = proc.offsetArgs[i];
          var init_string = [];
          for (var j = 0; j < off_arg.offset.length; ++j) {
            if (off_arg.offset[j] === 0) {
              continue;
            } else if (off_arg.offset[j] === 1) {
              init_string.push(["t", off_arg.array, "p", j].join(""));
            } else {
              init_string.push([off_arg.offset[j], "*t", off_arg.array, "p", j].join(""));
            }
          }
          if (init_string.length === 0) {
            vars.push("q" + i + "=0");
          } else {
            vars.push(["q", i, "=", init_string.join("+")].join(""));
          }
        }
        var thisVars = uniq([].concat(proc.pre.thisVars).concat(proc.body.thisVars).concat(proc.post.thisVars));
        vars = vars.concat(thisVars);
        if (vars.length > 0) {
          code.push("var " + vars.join(","));
        }
        for (var i = 0; i < proc.arrayArgs.length; ++i) {
          code.push("p" + i + "|=0");
        }
        if (proc.pre.body.length > 3) {
          code.push(processBlock(proc.pre, proc, dtypes));
        }
        var body = processBlock(proc.body, proc, dtypes);
        var matched = countMatches(loopOrders);
        if (matched < dimension) {
          code.push(outerFill(matched, loopOrders[0], proc, body));
        } else {
          code.push(innerFill(loopOrders[0], proc, body));
        }
        if (proc.post.body.length > 3) {
          code.push(processBlock(proc.post, proc, dtypes));
        }
        if (proc.debug) {
          console.log("-----Generated cwise routine for ", typesig, ":\n" + code.join("\n") + "\n----------");
        }
        var loopName = [proc.funcName || "unnamed", "_cwise_loop_", orders[0].join("s"), "m", matched, typeSummary(dtypes)].join("");
        var f = new Function(["function ", loopName, "(", arglist.join(","), "){", code.join("\n"), "} return ", loopName].join(""));
        return f();
      }
      module.exports = generateCWiseOp;
    }
  });

  // node_modules/cwise-compiler/lib/thunk.js
  var require_thunk = __commonJS({
    "node_modules/cwise-compiler/lib/thunk.js"(exports, module) {
      "use strict";
      var compile = require_compile();
      function createThunk(proc) {
        var code = ["'use strict'", "var CACHED={}"];
        var vars = [];
        var thunkName = proc.funcName + "_cwise_thunk";
        code.push(["return function ", thunkName, "(", proc.shimArgs.join(","), "){"].join(""));
        var typesig = [];
        var string_typesig = [];
        var proc_args = [[
          "array",
          proc.arrayArgs[0],
          ".shape.slice(",
          // Slice shape so that we only retain the shape over which we iterate (which gets passed to the cwise operator as SS).
          Math.max(0, proc.arrayBlockIndices[0]),
          proc.arrayBlockIndices[0] < 0 ? "," + proc.arrayBlockIndices[0] + ")" : ")"
        ].join("")];
        var shapeLengthConditions = [], shapeConditions = [];
        for (var i = 0; i < proc.arrayArgs.length; ++i) {
          var j = proc.arrayArgs[i];
          vars.push([
            "t",
            j,
            "=array",
            j,
            ".dtype,",
            "r",
            j,
            "=array",
            j,
            ".order"
          ].join(""));
          typesig.push("t" + j);
          typesig.push("r" + j);
          string_typesig.push("t" + j);
          string_typesig.push("r" + j + ".join()");
          proc_args.push("array" + j + ".data");
          proc_args.push("array" + j + ".stride");
          proc_args.push("array" + j + ".offset|0");
          if (i > 0) {
            shapeLengthConditions.push("array" + proc.arrayArgs[0] + ".shape.length===array" + j + ".shape.length+" + (Math.abs(proc.arrayBlockIndices[0]) - Math.abs(proc.arrayBlockIndices[i])));
            shapeConditions.push("array" + proc.arrayArgs[0] + ".shape[shapeIndex+" + Math.max(0, proc.arrayBlockIndices[0]) + "]===array" + j + ".shape[shapeIndex+" + Math.max(0, proc.arrayBlockIndices[i]) + "]");
          }
        }
        if (proc.arrayArgs.length > 1) {
          code.push("if (!(" + shapeLengthConditions.join(" && ") + ")) throw new Error('cwise: Arrays do not all have the same dimensionality!')");
          code.push("for(var shapeIndex=array" + proc.arrayArgs[0] + ".shape.length-" + Math.abs(proc.arrayBlockIndices[0]) + "; shapeIndex-->0;) {");
          code.push("if (!(" + shapeConditions.join(" && ") + ")) throw new Error('cwise: Arrays do not all have the same shape!')");
          code.push("}");
        }
        for (var i = 0; i < proc.scalarArgs.length; ++i) {
          proc_args.push("scalar" + proc.scalarArgs[i]);
        }
        vars.push(["type=[", string_typesig.join(","), "].join()"].join(""));
        vars.push("proc=CACHED[type]");
        code.push("var " + vars.join(","));
        code.push([
          "if(!proc){",
          "CACHED[type]=proc=compile([",
          typesig.join(","),
          "])}",
          "return proc(",
          proc_args.join(","),
          ")}"
        ].join(""));
        if (proc.debug) {
          console.log("-----Generated thunk:\n" + code.join("\n") + "\n----------");
        }
        var thunk = new Function("compile", code.join("\n"));
        return thunk(compile.bind(void 0, proc));
      }
      module.exports = createThunk;
    }
  });

  // node_modules/cwise-compiler/compiler.js
  var require_compiler = __commonJS({
    "node_modules/cwise-compiler/compiler.js"(exports, module) {
      "use strict";
      var createThunk = require_thunk();
      function Procedure() {
        this.argTypes = [];
        this.shimArgs = [];
        this.arrayArgs = [];
        this.arrayBlockIndices = [];
        this.scalarArgs = [];
        this.offsetArgs = [];
        this.offsetArgIndex = [];
        this.indexArgs = [];
        this.shapeArgs = [];
        this.funcName = "";
        this.pre = null;
        this.body = null;
        this.post = null;
        this.debug = false;
      }
      function compileCwise(user_args) {
        var proc = new Procedure();
        proc.pre = user_args.pre;
        proc.body = user_args.body;
        proc.post = user_args.post;
        var proc_args = user_args.args.slice(0);
        proc.argTypes = proc_args;
        for (var i = 0; i < proc_args.length; ++i) {
          var arg_type = proc_args[i];
          if (arg_type === "array" || typeof arg_type === "object" && arg_type.blockIndices) {
            proc.argTypes[i] = "array";
            proc.arrayArgs.push(i);
            proc.arrayBlockIndices.push(arg_type.blockIndices ? arg_type.blockIndices : 0);
            proc.shimArgs.push("array" + i);
            if (i < proc.pre.args.length && proc.pre.args[i].count > 0) {
              throw new Error("cwise: pre() block may not reference array args");
            }
            if (i < proc.post.args.length && proc.post.args[i].count > 0) {
              throw new Error("cwise: post() block may not reference array args");
            }
          } else if (arg_type === "scalar") {
            proc.scalarArgs.push(i);
            proc.shimArgs.push("scalar" + i);
          } else if (arg_type === "index") {
            proc.indexArgs.push(i);
            if (i < proc.pre.args.length && proc.pre.args[i].count > 0) {
              throw new Error("cwise: pre() block may not reference array index");
            }
            if (i < proc.body.args.length && proc.body.args[i].lvalue) {
              throw new Error("cwise: body() block may not write to array index");
            }
            if (i < proc.post.args.length && proc.post.args[i].count > 0) {
              throw new Error("cwise: post() block may not reference array index");
            }
          } else if (arg_type === "shape") {
            proc.shapeArgs.push(i);
            if (i < proc.pre.args.length && proc.pre.args[i].lvalue) {
              throw new Error("cwise: pre() block may not write to array shape");
            }
            if (i < proc.body.args.length && proc.body.args[i].lvalue) {
              throw new Error("cwise: body() block may not write to array shape");
            }
            if (i < proc.post.args.length && proc.post.args[i].lvalue) {
              throw new Error("cwise: post() block may not write to array shape");
            }
          } else if (typeof arg_type === "object" && arg_type.offset) {
            proc.argTypes[i] = "offset";
            proc.offsetArgs.push({ array: arg_type.array, offset: arg_type.offset });
            proc.offsetArgIndex.push(i);
          } else {
            throw new Error("cwise: Unknown argument type " + proc_args[i]);
          }
        }
        if (proc.arrayArgs.length <= 0) {
          throw new Error("cwise: No array arguments specified");
        }
        if (proc.pre.args.length > proc_args.length) {
          throw new Error("cwise: Too many arguments in pre() block");
        }
        if (proc.body.args.length > proc_args.length) {
          throw new Error("cwise: Too many arguments in body() block");
        }
        if (proc.post.args.length > proc_args.length) {
          throw new Error("cwise: Too many arguments in post() block");
        }
        proc.debug = !!user_args.printCode || !!user_args.debug;
        proc.funcName = user_args.funcName || "cwise";
        proc.blockSize = user_args.blockSize || 64;
        return createThunk(proc);
      }
      module.exports = compileCwise;
    }
  });

  // node_modules/ndarray-ops/ndarray-ops.js
  var require_ndarray_ops = __commonJS({
    "node_modules/ndarray-ops/ndarray-ops.js"(exports) {
      "use strict";
      var compile = require_compiler();
      var EmptyProc = {
        body: "",
        args: [],
        thisVars: [],
        localVars: []
      };
      function fixup(x) {
        if (!x) {
          return EmptyProc;
        }
        for (var i = 0; i < x.args.length; ++i) {
          var a = x.args[i];
          if (i === 0) {
            x.args[i] = { name: a, lvalue: true, rvalue: !!x.rvalue, count: x.count || 1 };
          } else {
            x.args[i] = { name: a, lvalue: false, rvalue: true, count: 1 };
          }
        }
        if (!x.thisVars) {
          x.thisVars = [];
        }
        if (!x.localVars) {
          x.localVars = [];
        }
        return x;
      }
      function pcompile(user_args) {
        return compile({
          args: user_args.args,
          pre: fixup(user_args.pre),
          body: fixup(user_args.body),
          post: fixup(user_args.proc),
          funcName: user_args.funcName
        });
      }
      function makeOp(user_args) {
        var args = [];
        for (var i = 0; i < user_args.args.length; ++i) {
          args.push("a" + i);
        }
        var wrapper = new Function("P", [
          "return function ",
          user_args.funcName,
          "_ndarrayops(",
          args.join(","),
          ") {P(",
          args.join(","),
          ");return a0}"
        ].join(""));
        return wrapper(pcompile(user_args));
      }
      var assign_ops = {
        add: "+",
        sub: "-",
        mul: "*",
        div: "/",
        mod: "%",
        band: "&",
        bor: "|",
        bxor: "^",
        lshift: "<<",
        rshift: ">>",
        rrshift: ">>>"
      };
      (function() {
        for (var id in assign_ops) {
          var op = assign_ops[id];
          exports[id] = makeOp({
            args: ["array", "array", "array"],
            body: {
              args: ["a", "b", "c"],
              body: "a=b" + op + "c"
            },
            funcName: id
          });
          exports[id + "eq"] = makeOp({
            args: ["array", "array"],
            body: {
              args: ["a", "b"],
              body: "a" + op + "=b"
            },
            rvalue: true,
            funcName: id + "eq"
          });
          exports[id + "s"] = makeOp({
            args: ["array", "array", "scalar"],
            body: {
              args: ["a", "b", "s"],
              body: "a=b" + op + "s"
            },
            funcName: id + "s"
          });
          exports[id + "seq"] = makeOp({
            args: ["array", "scalar"],
            body: {
              args: ["a", "s"],
              body: "a" + op + "=s"
            },
            rvalue: true,
            funcName: id + "seq"
          });
        }
      })();
      var unary_ops = {
        not: "!",
        bnot: "~",
        neg: "-",
        recip: "1.0/"
      };
      (function() {
        for (var id in unary_ops) {
          var op = unary_ops[id];
          exports[id] = makeOp({
            args: ["array", "array"],
            body: {
              args: ["a", "b"],
              body: "a=" + op + "b"
            },
            funcName: id
          });
          exports[id + "eq"] = makeOp({
            args: ["array"],
            body: {
              args: ["a"],
              body: "a=" + op + "a"
            },
            rvalue: true,
            count: 2,
            funcName: id + "eq"
          });
        }
      })();
      var binary_ops = {
        and: "&&",
        or: "||",
        eq: "===",
        neq: "!==",
        lt: "<",
        gt: ">",
        leq: "<=",
        geq: ">="
      };
      (function() {
        for (var id in binary_ops) {
          var op = binary_ops[id];
          exports[id] = makeOp({
            args: ["array", "array", "array"],
            body: {
              args: ["a", "b", "c"],
              body: "a=b" + op + "c"
            },
            funcName: id
          });
          exports[id + "s"] = makeOp({
            args: ["array", "array", "scalar"],
            body: {
              args: ["a", "b", "s"],
              body: "a=b" + op + "s"
            },
            funcName: id + "s"
          });
          exports[id + "eq"] = makeOp({
            args: ["array", "array"],
            body: {
              args: ["a", "b"],
              body: "a=a" + op + "b"
            },
            rvalue: true,
            count: 2,
            funcName: id + "eq"
          });
          exports[id + "seq"] = makeOp({
            args: ["array", "scalar"],
            body: {
              args: ["a", "s"],
              body: "a=a" + op + "s"
            },
            rvalue: true,
            count: 2,
            funcName: id + "seq"
          });
        }
      })();
      var math_unary = [
        "abs",
        "acos",
        "asin",
        "atan",
        "ceil",
        "cos",
        "exp",
        "floor",
        "log",
        "round",
        "sin",
        "sqrt",
        "tan"
      ];
      (function() {
        for (var i = 0; i < math_unary.length; ++i) {
          var f = math_unary[i];
          exports[f] = makeOp({
            args: ["array", "array"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a", "b"], body: "a=this_f(b)", thisVars: ["this_f"] },
            funcName: f
          });
          exports[f + "eq"] = makeOp({
            args: ["array"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a"], body: "a=this_f(a)", thisVars: ["this_f"] },
            rvalue: true,
            count: 2,
            funcName: f + "eq"
          });
        }
      })();
      var math_comm = [
        "max",
        "min",
        "atan2",
        "pow"
      ];
      (function() {
        for (var i = 0; i < math_comm.length; ++i) {
          var f = math_comm[i];
          exports[f] = makeOp({
            args: ["array", "array", "array"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a", "b", "c"], body: "a=this_f(b,c)", thisVars: ["this_f"] },
            funcName: f
          });
          exports[f + "s"] = makeOp({
            args: ["array", "array", "scalar"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a", "b", "c"], body: "a=this_f(b,c)", thisVars: ["this_f"] },
            funcName: f + "s"
          });
          exports[f + "eq"] = makeOp({
            args: ["array", "array"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a", "b"], body: "a=this_f(a,b)", thisVars: ["this_f"] },
            rvalue: true,
            count: 2,
            funcName: f + "eq"
          });
          exports[f + "seq"] = makeOp({
            args: ["array", "scalar"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a", "b"], body: "a=this_f(a,b)", thisVars: ["this_f"] },
            rvalue: true,
            count: 2,
            funcName: f + "seq"
          });
        }
      })();
      var math_noncomm = [
        "atan2",
        "pow"
      ];
      (function() {
        for (var i = 0; i < math_noncomm.length; ++i) {
          var f = math_noncomm[i];
          exports[f + "op"] = makeOp({
            args: ["array", "array", "array"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a", "b", "c"], body: "a=this_f(c,b)", thisVars: ["this_f"] },
            funcName: f + "op"
          });
          exports[f + "ops"] = makeOp({
            args: ["array", "array", "scalar"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a", "b", "c"], body: "a=this_f(c,b)", thisVars: ["this_f"] },
            funcName: f + "ops"
          });
          exports[f + "opeq"] = makeOp({
            args: ["array", "array"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a", "b"], body: "a=this_f(b,a)", thisVars: ["this_f"] },
            rvalue: true,
            count: 2,
            funcName: f + "opeq"
          });
          exports[f + "opseq"] = makeOp({
            args: ["array", "scalar"],
            pre: { args: [], body: "this_f=Math." + f, thisVars: ["this_f"] },
            body: { args: ["a", "b"], body: "a=this_f(b,a)", thisVars: ["this_f"] },
            rvalue: true,
            count: 2,
            funcName: f + "opseq"
          });
        }
      })();
      exports.any = compile({
        args: ["array"],
        pre: EmptyProc,
        body: { args: [{ name: "a", lvalue: false, rvalue: true, count: 1 }], body: "if(a){return true}", localVars: [], thisVars: [] },
        post: { args: [], localVars: [], thisVars: [], body: "return false" },
        funcName: "any"
      });
      exports.all = compile({
        args: ["array"],
        pre: EmptyProc,
        body: { args: [{ name: "x", lvalue: false, rvalue: true, count: 1 }], body: "if(!x){return false}", localVars: [], thisVars: [] },
        post: { args: [], localVars: [], thisVars: [], body: "return true" },
        funcName: "all"
      });
      exports.sum = compile({
        args: ["array"],
        pre: { args: [], localVars: [], thisVars: ["this_s"], body: "this_s=0" },
        body: { args: [{ name: "a", lvalue: false, rvalue: true, count: 1 }], body: "this_s+=a", localVars: [], thisVars: ["this_s"] },
        post: { args: [], localVars: [], thisVars: ["this_s"], body: "return this_s" },
        funcName: "sum"
      });
      exports.prod = compile({
        args: ["array"],
        pre: { args: [], localVars: [], thisVars: ["this_s"], body: "this_s=1" },
        body: { args: [{ name: "a", lvalue: false, rvalue: true, count: 1 }], body: "this_s*=a", localVars: [], thisVars: ["this_s"] },
        post: { args: [], localVars: [], thisVars: ["this_s"], body: "return this_s" },
        funcName: "prod"
      });
      exports.norm2squared = compile({
        args: ["array"],
        pre: { args: [], localVars: [], thisVars: ["this_s"], body: "this_s=0" },
        body: { args: [{ name: "a", lvalue: false, rvalue: true, count: 2 }], body: "this_s+=a*a", localVars: [], thisVars: ["this_s"] },
        post: { args: [], localVars: [], thisVars: ["this_s"], body: "return this_s" },
        funcName: "norm2squared"
      });
      exports.norm2 = compile({
        args: ["array"],
        pre: { args: [], localVars: [], thisVars: ["this_s"], body: "this_s=0" },
        body: { args: [{ name: "a", lvalue: false, rvalue: true, count: 2 }], body: "this_s+=a*a", localVars: [], thisVars: ["this_s"] },
        post: { args: [], localVars: [], thisVars: ["this_s"], body: "return Math.sqrt(this_s)" },
        funcName: "norm2"
      });
      exports.norminf = compile({
        args: ["array"],
        pre: { args: [], localVars: [], thisVars: ["this_s"], body: "this_s=0" },
        body: { args: [{ name: "a", lvalue: false, rvalue: true, count: 4 }], body: "if(-a>this_s){this_s=-a}else if(a>this_s){this_s=a}", localVars: [], thisVars: ["this_s"] },
        post: { args: [], localVars: [], thisVars: ["this_s"], body: "return this_s" },
        funcName: "norminf"
      });
      exports.norm1 = compile({
        args: ["array"],
        pre: { args: [], localVars: [], thisVars: ["this_s"], body: "this_s=0" },
        body: { args: [{ name: "a", lvalue: false, rvalue: true, count: 3 }], body: "this_s+=a<0?-a:a", localVars: [], thisVars: ["this_s"] },
        post: { args: [], localVars: [], thisVars: ["this_s"], body: "return this_s" },
        funcName: "norm1"
      });
      exports.sup = compile({
        args: ["array"],
        pre: {
          body: "this_h=-Infinity",
          args: [],
          thisVars: ["this_h"],
          localVars: []
        },
        body: {
          body: "if(_inline_1_arg0_>this_h)this_h=_inline_1_arg0_",
          args: [{ "name": "_inline_1_arg0_", "lvalue": false, "rvalue": true, "count": 2 }],
          thisVars: ["this_h"],
          localVars: []
        },
        post: {
          body: "return this_h",
          args: [],
          thisVars: ["this_h"],
          localVars: []
        }
      });
      exports.inf = compile({
        args: ["array"],
        pre: {
          body: "this_h=Infinity",
          args: [],
          thisVars: ["this_h"],
          localVars: []
        },
        body: {
          body: "if(_inline_1_arg0_<this_h)this_h=_inline_1_arg0_",
          args: [{ "name": "_inline_1_arg0_", "lvalue": false, "rvalue": true, "count": 2 }],
          thisVars: ["this_h"],
          localVars: []
        },
        post: {
          body: "return this_h",
          args: [],
          thisVars: ["this_h"],
          localVars: []
        }
      });
      exports.argmin = compile({
        args: ["index", "array", "shape"],
        pre: {
          body: "{this_v=Infinity;this_i=_inline_0_arg2_.slice(0)}",
          args: [
            { name: "_inline_0_arg0_", lvalue: false, rvalue: false, count: 0 },
            { name: "_inline_0_arg1_", lvalue: false, rvalue: false, count: 0 },
            { name: "_inline_0_arg2_", lvalue: false, rvalue: true, count: 1 }
          ],
          thisVars: ["this_i", "this_v"],
          localVars: []
        },
        body: {
          body: "{if(_inline_1_arg1_<this_v){this_v=_inline_1_arg1_;for(var _inline_1_k=0;_inline_1_k<_inline_1_arg0_.length;++_inline_1_k){this_i[_inline_1_k]=_inline_1_arg0_[_inline_1_k]}}}",
          args: [
            { name: "_inline_1_arg0_", lvalue: false, rvalue: true, count: 2 },
            { name: "_inline_1_arg1_", lvalue: false, rvalue: true, count: 2 }
          ],
          thisVars: ["this_i", "this_v"],
          localVars: ["_inline_1_k"]
        },
        post: {
          body: "{return this_i}",
          args: [],
          thisVars: ["this_i"],
          localVars: []
        }
      });
      exports.argmax = compile({
        args: ["index", "array", "shape"],
        pre: {
          body: "{this_v=-Infinity;this_i=_inline_0_arg2_.slice(0)}",
          args: [
            { name: "_inline_0_arg0_", lvalue: false, rvalue: false, count: 0 },
            { name: "_inline_0_arg1_", lvalue: false, rvalue: false, count: 0 },
            { name: "_inline_0_arg2_", lvalue: false, rvalue: true, count: 1 }
          ],
          thisVars: ["this_i", "this_v"],
          localVars: []
        },
        body: {
          body: "{if(_inline_1_arg1_>this_v){this_v=_inline_1_arg1_;for(var _inline_1_k=0;_inline_1_k<_inline_1_arg0_.length;++_inline_1_k){this_i[_inline_1_k]=_inline_1_arg0_[_inline_1_k]}}}",
          args: [
            { name: "_inline_1_arg0_", lvalue: false, rvalue: true, count: 2 },
            { name: "_inline_1_arg1_", lvalue: false, rvalue: true, count: 2 }
          ],
          thisVars: ["this_i", "this_v"],
          localVars: ["_inline_1_k"]
        },
        post: {
          body: "{return this_i}",
          args: [],
          thisVars: ["this_i"],
          localVars: []
        }
      });
      exports.random = makeOp({
        args: ["array"],
        pre: { args: [], body: "this_f=Math.random", thisVars: ["this_f"] },
        body: { args: ["a"], body: "a=this_f()", thisVars: ["this_f"] },
        funcName: "random"
      });
      exports.assign = makeOp({
        args: ["array", "array"],
        body: { args: ["a", "b"], body: "a=b" },
        funcName: "assign"
      });
      exports.assigns = makeOp({
        args: ["array", "scalar"],
        body: { args: ["a", "b"], body: "a=b" },
        funcName: "assigns"
      });
      exports.equals = compile({
        args: ["array", "array"],
        pre: EmptyProc,
        body: {
          args: [
            { name: "x", lvalue: false, rvalue: true, count: 1 },
            { name: "y", lvalue: false, rvalue: true, count: 1 }
          ],
          body: "if(x!==y){return false}",
          localVars: [],
          thisVars: []
        },
        post: { args: [], localVars: [], thisVars: [], body: "return true" },
        funcName: "equals"
      });
    }
  });

  // ../../tmp/h5web-VWe5vp/entry.ts
  var entry_exports = {};
  __export(entry_exports, {
    api: () => worker_default
  });

  // node_modules/d3-format/dist/d3-format.mjs
  function formatDecimal(x) {
    return Math.abs(x = Math.round(x)) >= 1e21 ? x.toLocaleString("en").replace(/,/g, "") : x.toString(10);
  }
  function formatDecimalParts(x, p) {
    if (!isFinite(x) || x === 0) return null;
    var i = (x = p ? x.toExponential(p - 1) : x.toExponential()).indexOf("e"), coefficient = x.slice(0, i);
    return [
      coefficient.length > 1 ? coefficient[0] + coefficient.slice(2) : coefficient,
      +x.slice(i + 1)
    ];
  }
  function exponent(x) {
    return x = formatDecimalParts(Math.abs(x)), x ? x[1] : NaN;
  }
  function formatGroup(grouping, thousands) {
    return function(value, width) {
      var i = value.length, t = [], j = 0, g = grouping[0], length = 0;
      while (i > 0 && g > 0) {
        if (length + g + 1 > width) g = Math.max(1, width - length);
        t.push(value.substring(i -= g, i + g));
        if ((length += g + 1) > width) break;
        g = grouping[j = (j + 1) % grouping.length];
      }
      return t.reverse().join(thousands);
    };
  }
  function formatNumerals(numerals) {
    return function(value) {
      return value.replace(/[0-9]/g, function(i) {
        return numerals[+i];
      });
    };
  }
  var re = /^(?:(.)?([<>=^]))?([+\-( ])?([$#])?(0)?(\d+)?(,)?(\.\d+)?(~)?([a-z%])?$/i;
  function formatSpecifier(specifier) {
    if (!(match = re.exec(specifier))) throw new Error("invalid format: " + specifier);
    var match;
    return new FormatSpecifier({
      fill: match[1],
      align: match[2],
      sign: match[3],
      symbol: match[4],
      zero: match[5],
      width: match[6],
      comma: match[7],
      precision: match[8] && match[8].slice(1),
      trim: match[9],
      type: match[10]
    });
  }
  formatSpecifier.prototype = FormatSpecifier.prototype;
  function FormatSpecifier(specifier) {
    this.fill = specifier.fill === void 0 ? " " : specifier.fill + "";
    this.align = specifier.align === void 0 ? ">" : specifier.align + "";
    this.sign = specifier.sign === void 0 ? "-" : specifier.sign + "";
    this.symbol = specifier.symbol === void 0 ? "" : specifier.symbol + "";
    this.zero = !!specifier.zero;
    this.width = specifier.width === void 0 ? void 0 : +specifier.width;
    this.comma = !!specifier.comma;
    this.precision = specifier.precision === void 0 ? void 0 : +specifier.precision;
    this.trim = !!specifier.trim;
    this.type = specifier.type === void 0 ? "" : specifier.type + "";
  }
  FormatSpecifier.prototype.toString = function() {
    return this.fill + this.align + this.sign + this.symbol + (this.zero ? "0" : "") + (this.width === void 0 ? "" : Math.max(1, this.width | 0)) + (this.comma ? "," : "") + (this.precision === void 0 ? "" : "." + Math.max(0, this.precision | 0)) + (this.trim ? "~" : "") + this.type;
  };
  function formatTrim(s) {
    out: for (var n2 = s.length, i = 1, i0 = -1, i1; i < n2; ++i) {
      switch (s[i]) {
        case ".":
          i0 = i1 = i;
          break;
        case "0":
          if (i0 === 0) i0 = i;
          i1 = i;
          break;
        default:
          if (!+s[i]) break out;
          if (i0 > 0) i0 = 0;
          break;
      }
    }
    return i0 > 0 ? s.slice(0, i0) + s.slice(i1 + 1) : s;
  }
  var prefixExponent;
  function formatPrefixAuto(x, p) {
    var d = formatDecimalParts(x, p);
    if (!d) return prefixExponent = void 0, x.toPrecision(p);
    var coefficient = d[0], exponent2 = d[1], i = exponent2 - (prefixExponent = Math.max(-8, Math.min(8, Math.floor(exponent2 / 3))) * 3) + 1, n2 = coefficient.length;
    return i === n2 ? coefficient : i > n2 ? coefficient + new Array(i - n2 + 1).join("0") : i > 0 ? coefficient.slice(0, i) + "." + coefficient.slice(i) : "0." + new Array(1 - i).join("0") + formatDecimalParts(x, Math.max(0, p + i - 1))[0];
  }
  function formatRounded(x, p) {
    var d = formatDecimalParts(x, p);
    if (!d) return x + "";
    var coefficient = d[0], exponent2 = d[1];
    return exponent2 < 0 ? "0." + new Array(-exponent2).join("0") + coefficient : coefficient.length > exponent2 + 1 ? coefficient.slice(0, exponent2 + 1) + "." + coefficient.slice(exponent2 + 1) : coefficient + new Array(exponent2 - coefficient.length + 2).join("0");
  }
  var formatTypes = {
    "%": (x, p) => (x * 100).toFixed(p),
    "b": (x) => Math.round(x).toString(2),
    "c": (x) => x + "",
    "d": formatDecimal,
    "e": (x, p) => x.toExponential(p),
    "f": (x, p) => x.toFixed(p),
    "g": (x, p) => x.toPrecision(p),
    "o": (x) => Math.round(x).toString(8),
    "p": (x, p) => formatRounded(x * 100, p),
    "r": formatRounded,
    "s": formatPrefixAuto,
    "X": (x) => Math.round(x).toString(16).toUpperCase(),
    "x": (x) => Math.round(x).toString(16)
  };
  function identity(x) {
    return x;
  }
  var map = Array.prototype.map;
  var prefixes = ["y", "z", "a", "f", "p", "n", "\xB5", "m", "", "k", "M", "G", "T", "P", "E", "Z", "Y"];
  function formatLocale(locale2) {
    var group = locale2.grouping === void 0 || locale2.thousands === void 0 ? identity : formatGroup(map.call(locale2.grouping, Number), locale2.thousands + ""), currencyPrefix = locale2.currency === void 0 ? "" : locale2.currency[0] + "", currencySuffix = locale2.currency === void 0 ? "" : locale2.currency[1] + "", decimal = locale2.decimal === void 0 ? "." : locale2.decimal + "", numerals = locale2.numerals === void 0 ? identity : formatNumerals(map.call(locale2.numerals, String)), percent = locale2.percent === void 0 ? "%" : locale2.percent + "", minus = locale2.minus === void 0 ? "\u2212" : locale2.minus + "", nan = locale2.nan === void 0 ? "NaN" : locale2.nan + "";
    function newFormat(specifier, options) {
      specifier = formatSpecifier(specifier);
      var fill = specifier.fill, align = specifier.align, sign = specifier.sign, symbol = specifier.symbol, zero = specifier.zero, width = specifier.width, comma = specifier.comma, precision = specifier.precision, trim = specifier.trim, type = specifier.type;
      if (type === "n") comma = true, type = "g";
      else if (!formatTypes[type]) precision === void 0 && (precision = 12), trim = true, type = "g";
      if (zero || fill === "0" && align === "=") zero = true, fill = "0", align = "=";
      var prefix = (options && options.prefix !== void 0 ? options.prefix : "") + (symbol === "$" ? currencyPrefix : symbol === "#" && /[boxX]/.test(type) ? "0" + type.toLowerCase() : ""), suffix = (symbol === "$" ? currencySuffix : /[%p]/.test(type) ? percent : "") + (options && options.suffix !== void 0 ? options.suffix : "");
      var formatType = formatTypes[type], maybeSuffix = /[defgprs%]/.test(type);
      precision = precision === void 0 ? 6 : /[gprs]/.test(type) ? Math.max(1, Math.min(21, precision)) : Math.max(0, Math.min(20, precision));
      function format2(value) {
        var valuePrefix = prefix, valueSuffix = suffix, i, n2, c;
        if (type === "c") {
          valueSuffix = formatType(value) + valueSuffix;
          value = "";
        } else {
          value = +value;
          var valueNegative = value < 0 || 1 / value < 0;
          value = isNaN(value) ? nan : formatType(Math.abs(value), precision);
          if (trim) value = formatTrim(value);
          if (valueNegative && +value === 0 && sign !== "+") valueNegative = false;
          valuePrefix = (valueNegative ? sign === "(" ? sign : minus : sign === "-" || sign === "(" ? "" : sign) + valuePrefix;
          valueSuffix = (type === "s" && !isNaN(value) && prefixExponent !== void 0 ? prefixes[8 + prefixExponent / 3] : "") + valueSuffix + (valueNegative && sign === "(" ? ")" : "");
          if (maybeSuffix) {
            i = -1, n2 = value.length;
            while (++i < n2) {
              if (c = value.charCodeAt(i), 48 > c || c > 57) {
                valueSuffix = (c === 46 ? decimal + value.slice(i + 1) : value.slice(i)) + valueSuffix;
                value = value.slice(0, i);
                break;
              }
            }
          }
        }
        if (comma && !zero) value = group(value, Infinity);
        var length = valuePrefix.length + value.length + valueSuffix.length, padding = length < width ? new Array(width - length + 1).join(fill) : "";
        if (comma && zero) value = group(padding + value, padding.length ? width - valueSuffix.length : Infinity), padding = "";
        switch (align) {
          case "<":
            value = valuePrefix + value + valueSuffix + padding;
            break;
          case "=":
            value = valuePrefix + padding + value + valueSuffix;
            break;
          case "^":
            value = padding.slice(0, length = padding.length >> 1) + valuePrefix + value + valueSuffix + padding.slice(length);
            break;
          default:
            value = padding + valuePrefix + value + valueSuffix;
            break;
        }
        return numerals(value);
      }
      format2.toString = function() {
        return specifier + "";
      };
      return format2;
    }
    function formatPrefix2(specifier, value) {
      var e = Math.max(-8, Math.min(8, Math.floor(exponent(value) / 3))) * 3, k = Math.pow(10, -e), f = newFormat((specifier = formatSpecifier(specifier), specifier.type = "f", specifier), { suffix: prefixes[8 + e / 3] });
      return function(value2) {
        return f(k * value2);
      };
    }
    return {
      format: newFormat,
      formatPrefix: formatPrefix2
    };
  }
  var locale;
  var format;
  var formatPrefix;
  defaultLocale({
    thousands: ",",
    grouping: [3],
    currency: ["$", ""]
  });
  function defaultLocale(definition) {
    locale = formatLocale(definition);
    format = locale.format;
    formatPrefix = locale.formatPrefix;
    return locale;
  }

  // ../../tmp/h5web-VWe5vp/packages/shared/src/vis-utils.ts
  var import_ndarray = __toESM(require_ndarray());
  var import_ndarray_ops = __toESM(require_ndarray_ops());
  var SCALAR_SELECTION_REGEXP = /^\d+(?:,\d+)*$/u;
  var AXIS_SCALE_TYPES = [
    "linear" /* Linear */,
    "log" /* Log */,
    "symlog" /* SymLog */
  ];
  var COLOR_SCALE_TYPES = [
    "linear" /* Linear */,
    "log" /* Log */,
    "symlog" /* SymLog */,
    "sqrt" /* Sqrt */
  ];
  var formatBound = format(".3~e");
  var formatBoundInput = format(".5~e");
  var formatTooltipVal = format(".5~g");
  var formatTooltipErr = format(".3~g");
  var formatScalarComplex = createComplexFormatter(format(".12~g"));
  var TICK_PRECISION = 3;
  var formatTickAuto = format(`.${TICK_PRECISION}~g`);
  var formatTickExp = format(`.${TICK_PRECISION}~e`);
  function createComplexFormatter(formatReal, formatImag = formatReal) {
    return (value) => {
      const [real, imag] = value;
      const sign = Math.sign(imag) >= 0 ? " + " : " \u2212 ";
      return `${formatReal(real)}${sign}${formatImag(Math.abs(imag))} i`;
    };
  }

  // ../../tmp/h5web-VWe5vp/packages/shared/src/guards.ts
  function isDefined(val) {
    return val !== void 0;
  }
  function isNonNull(val) {
    return val !== null;
  }
  function assertDefined(val, message = "Expected some value") {
    if (!isDefined(val)) {
      throw new TypeError(message);
    }
  }
  function assertNonNull(val, message = "Expected value to not be null") {
    if (!isNonNull(val)) {
      throw new TypeError(message);
    }
  }
  function isTypedArray(val) {
    return val instanceof Int8Array || val instanceof Int16Array || val instanceof Int32Array || val instanceof Uint8Array || val instanceof Uint8ClampedArray || val instanceof Uint16Array || val instanceof Uint32Array || val instanceof Float32Array || val instanceof Float64Array;
  }
  function isIntegerType(type) {
    return type.class === "Integer" /* Integer */;
  }
  function isFloatType(type) {
    return type.class === "Float" /* Float */;
  }
  function isNumericType(type) {
    return isIntegerType(type) || isFloatType(type);
  }

  // ../../tmp/h5web-VWe5vp/shims/comlink.js
  var transfer = (v) => v;

  // ../../tmp/h5web-VWe5vp/shims/h5wasm.js
  var ready = __h5wasm.ready;
  var File = __h5wasm.File;
  var Dataset = __h5wasm.Dataset;
  var Attribute = __h5wasm.Attribute;

  // ../../tmp/h5web-VWe5vp/packages/shared/src/h5t.ts
  var H5T_TO_ENDIANNESS = {
    [0 /* LE */]: "little-endian",
    [1 /* BE */]: "big-endian",
    [2 /* VAX */]: "VAX",
    [3 /* MIXED */]: "mixed",
    [4 /* NONE */]: "none"
  };
  var H5T_TO_CHAR_SET = {
    [0 /* ASCII */]: "ASCII",
    [1 /* UTF8 */]: "UTF-8"
  };
  var H5T_TO_STR_PAD = {
    [0 /* NULLTERM */]: "null-terminated",
    [1 /* NULLPAD */]: "null-padded",
    [2 /* SPACEPAD */]: "space-padded"
  };

  // ../../tmp/h5web-VWe5vp/packages/shared/src/hdf5-utils.ts
  function buildEntityPath(parentPath, entityNameOrRelativePath) {
    const prefix = parentPath === "/" ? "" : parentPath;
    return `${prefix}/${entityNameOrRelativePath}`;
  }
  function getNameFromPath(path) {
    const segments = path.split("/");
    return segments[segments.length - 1];
  }
  function nullShape() {
    return { class: "Null" /* Null */ };
  }
  function scalarShape() {
    return { class: "Scalar" /* Scalar */, dims: [] };
  }
  function arrayShape(dims) {
    return { class: "Array" /* Array */, dims };
  }
  function parseShape(dims) {
    if (!dims) {
      return nullShape();
    }
    if (dims.length === 0) {
      return scalarShape();
    }
    return arrayShape(dims);
  }
  function intType(signed = true, size = 32, h5tOrder = 0 /* LE */) {
    return {
      class: "Integer" /* Integer */,
      signed,
      endianness: H5T_TO_ENDIANNESS[h5tOrder],
      size
    };
  }
  function floatType(size = 32, h5tOrder = 0 /* LE */) {
    return {
      class: "Float" /* Float */,
      endianness: H5T_TO_ENDIANNESS[h5tOrder],
      size
    };
  }
  function strType(h5tCharSet = 0 /* ASCII */, h5tStrPad = 0 /* NULLTERM */, length) {
    return {
      class: "String" /* String */,
      charSet: H5T_TO_CHAR_SET[h5tCharSet],
      strPad: H5T_TO_STR_PAD[h5tStrPad],
      ...length !== void 0 && { length }
    };
  }
  function cplxType(realType, imagType = realType) {
    return { class: "Complex" /* Complex */, realType, imagType };
  }
  function compoundOrCplxType(fields) {
    const fieldsMap = new Map(fields);
    const r = fieldsMap.get("r");
    const i = fieldsMap.get("i");
    if (r && isNumericType(r) && i && isNumericType(i)) {
      return cplxType(r, i);
    }
    return { class: "Compound" /* Compound */, fields: fieldsMap };
  }
  function vlenType(baseType) {
    return { class: "Array (variable length)" /* VLen */, base: baseType };
  }
  function arrayType(baseType, dims) {
    return { class: "Array" /* Array */, base: baseType, dims };
  }
  function boolType(baseType) {
    return { class: "Boolean" /* Bool */, base: baseType };
  }
  function enumType(baseType, hdf5Mapping) {
    return {
      class: "Enumeration" /* Enum */,
      base: baseType,
      // Swap mapping to optimise retrieval of enum keys from numeric values
      mapping: Object.fromEntries(
        Object.entries(hdf5Mapping).map(([k, v]) => [v, k])
      )
    };
  }
  function enumOrBoolType(baseType, hdf5Mapping) {
    if (Object.keys(hdf5Mapping).length === 2 && hdf5Mapping.FALSE === 0 && hdf5Mapping.TRUE === 1) {
      return boolType(baseType);
    }
    return enumType(baseType, hdf5Mapping);
  }
  function timeType() {
    return { class: "Time" /* Time */ };
  }
  function bitfieldType(h5tOrder = 0 /* LE */) {
    return {
      class: "Bitfield" /* Bitfield */,
      endianness: H5T_TO_ENDIANNESS[h5tOrder]
    };
  }
  function opaqueType(tag = "") {
    return { class: "Opaque" /* Opaque */, tag };
  }
  function referenceType() {
    return { class: "Reference" /* Reference */ };
  }
  function unknownType() {
    return { class: "Unknown" /* Unknown */ };
  }

  // ../../tmp/h5web-VWe5vp/shims/nanoid.js
  var n = 0;
  var run = Math.random().toString(36).slice(2);
  var nanoid = () => `/tmp/h5web-ref-${run}-${++n}.h5`;

  // ../../tmp/h5web-VWe5vp/packages/h5wasm/src/worker-utils.ts
  var PLUGINS_FOLDER = "plugins";
  var WORKERFS_FOLDER = "workerfs";
  async function initH5Wasm() {
    const module = await ready;
    module.activate_throwing_error_handler();
    module.remove_plugin_search_path(0);
    module.insert_plugin_search_path(`/${PLUGINS_FOLDER}`, 0);
    module.FS.mkdirTree(PLUGINS_FOLDER);
    return module;
  }
  var workerFSRootNode;
  async function mountWorkerFS(h5wasm) {
    if (workerFSRootNode !== void 0) {
      return workerFSRootNode;
    }
    const { FS } = h5wasm;
    const { WORKERFS } = FS.filesystems;
    FS.mkdir(WORKERFS_FOLDER);
    workerFSRootNode = FS.mount(
      WORKERFS,
      {},
      WORKERFS_FOLDER
    );
    return workerFSRootNode;
  }
  function getAvailableFileName(FS, mountPt = "") {
    const fileName = nanoid();
    const filePath = `${mountPt && `${mountPt}/`}${fileName}`;
    return FS.analyzePath(filePath).exists ? getAvailableFileName(FS, mountPt) : fileName;
  }
  function parseEntity(h5wasm, fileId, path, isChild = false) {
    const baseEntity = { name: getNameFromPath(path), path, attributes: [] };
    const kind = h5wasm.get_type(fileId, path);
    if (kind === h5wasm.H5G_GROUP) {
      const baseGroup = {
        ...baseEntity,
        kind: "group" /* Group */,
        attributes: parseAttributes(h5wasm, fileId, path)
      };
      if (isChild) {
        return baseGroup;
      }
      const childrenNames = h5wasm.get_names(fileId, path, false);
      return {
        ...baseGroup,
        children: childrenNames.map(
          (childName) => parseEntity(h5wasm, fileId, buildEntityPath(path, childName), true)
        )
      };
    }
    if (kind === h5wasm.H5G_DATASET) {
      const metadata = h5wasm.get_dataset_metadata(fileId, path);
      const { chunks, maxshape, shape, virtual_sources, ...rawType } = metadata;
      return {
        ...baseEntity,
        kind: "dataset" /* Dataset */,
        shape: parseShape(shape),
        type: parseDType(metadata),
        chunks: chunks ?? void 0,
        filters: h5wasm.get_dataset_filters(fileId, path),
        virtualSources: parseVirtualSources(metadata),
        attributes: parseAttributes(h5wasm, fileId, path),
        rawType
      };
    }
    if (kind === h5wasm.H5G_TYPE) {
      const metadata = h5wasm.get_datatype_metadata(fileId, path);
      const { chunks, maxshape, shape, ...rawType } = metadata;
      return {
        ...baseEntity,
        kind: "datatype" /* Datatype */,
        type: parseDType(metadata),
        attributes: parseAttributes(h5wasm, fileId, path),
        rawType
      };
    }
    if (kind === h5wasm.H5G_LINK) {
      const target = h5wasm.get_symbolic_link(fileId, path);
      return {
        ...baseEntity,
        kind: "unresolved" /* Unresolved */,
        link: {
          class: "Soft",
          path: target
        }
      };
    }
    if (kind === h5wasm.H5G_UDLINK) {
      const extLink = h5wasm.get_external_link(fileId, path);
      return {
        ...baseEntity,
        kind: "unresolved" /* Unresolved */,
        link: {
          class: "External",
          file: extLink.filename,
          path: extLink.obj_path
        }
      };
    }
    return {
      ...baseEntity,
      kind: "unresolved" /* Unresolved */
    };
  }
  function parseAttributes(h5wasm, fileId, path) {
    const names = h5wasm.get_attribute_names(fileId, path);
    return names.map((name) => {
      const metadata = h5wasm.get_attribute_metadata(fileId, path, name);
      return {
        name,
        shape: parseShape(metadata.shape),
        type: parseDType(metadata)
      };
    });
  }
  function parseDType(metadata) {
    const { type: h5tClass, size } = metadata;
    if (h5tClass === 0 /* INTEGER */) {
      const { signed, littleEndian } = metadata;
      return intType(
        signed,
        size * 8,
        littleEndian ? 0 /* LE */ : 1 /* BE */
      );
    }
    if (h5tClass === 1 /* FLOAT */) {
      const { littleEndian } = metadata;
      return floatType(size * 8, littleEndian ? 0 /* LE */ : 1 /* BE */);
    }
    if (h5tClass === 2 /* TIME */) {
      return timeType();
    }
    if (h5tClass === 3 /* STRING */) {
      const { cset, strpad, vlen } = metadata;
      return strType(cset, strpad, vlen ? void 0 : size);
    }
    if (h5tClass === 4 /* BITFIELD */) {
      return bitfieldType();
    }
    if (h5tClass === 5 /* OPAQUE */) {
      return opaqueType();
    }
    if (h5tClass === 6 /* COMPOUND */) {
      const { compound_type } = metadata;
      assertDefined(compound_type);
      return compoundOrCplxType(
        compound_type.members.map(({ name, ...mType }) => [
          name,
          parseDType(mType)
        ])
      );
    }
    if (h5tClass === 7 /* REFERENCE */) {
      return referenceType();
    }
    if (h5tClass === 8 /* ENUM */) {
      const { enum_type } = metadata;
      assertDefined(enum_type);
      const { members, type } = enum_type;
      const baseType = parseDType({ ...metadata, type });
      if (!isNumericType(baseType)) {
        throw new TypeError("Expected enum type to have numeric base type");
      }
      return enumOrBoolType(baseType, members);
    }
    if (h5tClass === 9 /* VLEN */) {
      const { vlen_type } = metadata;
      assertDefined(vlen_type);
      return vlenType(parseDType(vlen_type));
    }
    if (h5tClass === 10 /* ARRAY */) {
      const { array_type } = metadata;
      assertDefined(array_type);
      assertNonNull(array_type.shape);
      return arrayType(parseDType(array_type), array_type.shape);
    }
    return unknownType();
  }
  function parseVirtualSources(metadata) {
    return metadata.virtual_sources?.map(({ file_name, dset_name }) => ({
      file: file_name,
      path: dset_name
    }));
  }
  function readSelectedValue(h5wDataset, selection) {
    if (!selection) {
      return h5wDataset.value;
    }
    const { shape } = h5wDataset;
    assertNonNull(shape);
    const selectionMembers = selection.split(",");
    const ranges = selectionMembers.map((member, i) => {
      if (member === ":") {
        return [0, shape[i]];
      }
      return [Number(member), Number(member) + 1];
    });
    const slicedValue = h5wDataset.slice(ranges);
    if (SCALAR_SELECTION_REGEXP.test(selection) && Array.isArray(slicedValue)) {
      return slicedValue[0];
    }
    return slicedValue;
  }

  // ../../tmp/h5web-VWe5vp/packages/h5wasm/src/worker.ts
  var h5wasmReady = initH5Wasm();
  async function openFileBuffer(buffer) {
    const h5wasm = await h5wasmReady;
    const { FS } = h5wasm;
    const fileName = getAvailableFileName(FS);
    FS.writeFile(fileName, new Uint8Array(buffer), { flags: "w+" });
    const { file_id } = new File(fileName);
    return file_id;
  }
  async function openLocalFile(file) {
    const h5wasm = await h5wasmReady;
    const rootNode = await mountWorkerFS(h5wasm);
    const { FS } = h5wasm;
    const fileName = getAvailableFileName(FS, WORKERFS_FOLDER);
    const { WORKERFS } = FS.filesystems;
    WORKERFS.createNode(rootNode, fileName, WORKERFS.FILE_MODE, 0, file);
    const { file_id } = new File(`${WORKERFS_FOLDER}/${fileName}`, "Sr");
    return file_id;
  }
  async function closeFile(fileId) {
    const h5wasm = await h5wasmReady;
    return h5wasm.close_file(fileId);
  }
  async function getEntity(fileId, path) {
    const h5wasm = await h5wasmReady;
    return parseEntity(h5wasm, fileId, path);
  }
  async function getValue(fileId, path, selection) {
    const value = readSelectedValue(new Dataset(fileId, path), selection);
    return isTypedArray(value) ? transfer(value, [value.buffer]) : value;
  }
  async function getAttrValue(fileId, path, attrName) {
    return new Attribute(fileId, path, attrName).json_value;
  }
  async function getDescendantPaths(fileId, rootPath) {
    const h5wasm = await h5wasmReady;
    return h5wasm.get_names(fileId, rootPath, true).map((path) => `${rootPath}${path}`);
  }
  async function isPluginLoaded(plugin) {
    const pluginPath = `/${PLUGINS_FOLDER}/libH5Z${plugin}.so`;
    const { FS } = await h5wasmReady;
    return FS.analyzePath(pluginPath).exists;
  }
  async function loadPlugin(plugin, buffer) {
    const pluginPath = `/${PLUGINS_FOLDER}/libH5Z${plugin}.so`;
    const { FS } = await h5wasmReady;
    FS.writeFile(pluginPath, new Uint8Array(buffer));
  }
  var api = {
    openFileBuffer,
    openLocalFile,
    closeFile,
    getEntity,
    getValue,
    getAttrValue,
    getDescendantPaths,
    isPluginLoaded,
    loadPlugin
  };
  var worker_default = api;
  if (false) {
    expose(api);
  }
  return __toCommonJS(entry_exports);
})();
/*! Bundled license information:

is-buffer/index.js:
  (*!
   * Determine if an object is a Buffer
   *
   * @author   Feross Aboukhadijeh <https://feross.org>
   * @license  MIT
   *)
*/

  return __reference.api;
}
